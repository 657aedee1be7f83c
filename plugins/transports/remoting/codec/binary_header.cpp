// ROCKETMQ binary header: a 17-byte fixed part (code, language, version, opaque, flag, remark
// length), the remark, the extFields byte length, then the map entries. Every length read from
// the wire is checked against what is left before it is used.
#include <cstdint>
#include <limits>
#include <string>

#include "transports/remoting/codec/byte_order.hpp"
#include "transports/remoting/codec/header_codec.hpp"

namespace mqkit::plugins::transports::remoting {

namespace {

using v1::RemotingCommand;
using v1::Result;
using v1::Status;

constexpr std::size_t kFixedSize = 17;  // code 2, language 1, version 2, opaque 4, flag 4, remark length 4

// Reads the header front to back; every accessor fails (with a message naming the offset and
// the field) instead of reading past the end.
class Cursor {
 public:
  explicit Cursor(std::span<const std::uint8_t> bytes, std::size_t offset = 0)
      : bytes_(bytes), offset_(offset) {}

  std::size_t offset() const { return offset_; }
  std::size_t left() const { return bytes_.size() - offset_; }

  // Inline checks with the message built out of line: a send header takes some fifty of these.
  bool need(std::size_t n, const char* what) {
    if (left() >= n) [[likely]] return true;
    return short_of(n, what);
  }
  std::int16_t i16() { return advance(2, load_i16(bytes_.data() + offset_)); }
  std::int32_t i32() { return advance(4, load_i32(bytes_.data() + offset_)); }
  std::uint8_t u8() { return advance(1, bytes_[offset_]); }
  std::string text(std::size_t n) {
    std::string s(reinterpret_cast<const char*>(bytes_.data() + offset_), n);
    offset_ += n;
    return s;
  }

  // A length field: must be >= 0 and fit in what is left.
  bool length(std::int64_t n, const char* what, std::size_t at) {
    if (n < 0) [[unlikely]] return negative(n, what, at);
    return need(static_cast<std::size_t>(n), what);
  }

  const std::string& error() const { return error_; }

 private:
  [[gnu::cold, gnu::noinline]] bool short_of(std::size_t n, const char* what) {
    error_ = "binary header: " + std::string(what) + " at offset " + std::to_string(offset_) + " needs " +
             std::to_string(n) + " bytes, " + std::to_string(left()) + " left";
    return false;
  }
  [[gnu::cold, gnu::noinline]] bool negative(std::int64_t n, const char* what, std::size_t at) {
    error_ = "binary header: negative " + std::string(what) + " " + std::to_string(n) + " at offset " +
             std::to_string(at);
    return false;
  }

  template <typename T>
  T advance(std::size_t n, T value) {
    offset_ += n;
    return value;
  }

  std::span<const std::uint8_t> bytes_;
  std::size_t offset_;
  std::string error_;
};

// How many entries a well-formed map of `bytes` holds, to size the fields once; the decoding
// loop does the checking, so a malformed map just yields a rough count here.
std::size_t count_entries(std::span<const std::uint8_t> bytes, std::size_t offset) {
  std::size_t count = 0;
  while (bytes.size() - offset >= 6) {
    const std::size_t key_size = static_cast<std::uint16_t>(load_i16(bytes.data() + offset));
    offset += 2 + key_size;
    if (bytes.size() < offset || bytes.size() - offset < 4) break;
    const std::int32_t value_size = load_i32(bytes.data() + offset);
    if (value_size < 0) break;
    offset += 4;
    ++count;
    if (bytes.size() - offset < static_cast<std::size_t>(value_size)) break;
    offset += static_cast<std::size_t>(value_size);
  }
  return count;
}

bool fits_i16(std::int32_t v) {
  return v >= std::numeric_limits<std::int16_t>::min() && v <= std::numeric_limits<std::int16_t>::max();
}

}  // namespace

Status append_binary_header(const RemotingCommand& command, std::vector<std::uint8_t>* out) {
  if (!fits_i16(command.code)) {
    return Status::invalid_argument("binary header: code " + std::to_string(command.code) +
                                    " does not fit its 16-bit field");
  }
  if (!fits_i16(command.version)) {
    return Status::invalid_argument("binary header: version " + std::to_string(command.version) +
                                    " does not fit its 16-bit field");
  }
  constexpr auto kMaxInt = static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max());
  const std::size_t remark_size = command.remark ? command.remark->size() : 0;
  std::size_t ext_size = 0;
  for (const auto& [key, value] : command.ext_fields) {
    if (key.size() > static_cast<std::size_t>(std::numeric_limits<std::int16_t>::max())) {
      return Status::invalid_argument("binary header: extFields key of " + std::to_string(key.size()) +
                                      " bytes does not fit its 16-bit length");
    }
    ext_size += 2 + key.size() + 4 + value.size();
  }
  if (remark_size > kMaxInt || ext_size > kMaxInt) {
    return Status::invalid_argument("binary header: remark or extFields too large");
  }
  // Sized once and written in place: appending field by field re-checked the capacity for
  // every byte of every length.
  const std::size_t start = out->size();
  out->resize(start + kFixedSize + remark_size + 4 + ext_size);
  ByteWriter w(out->data() + start);
  w.u16(static_cast<std::uint16_t>(command.code));
  w.u8(static_cast<std::uint8_t>(command.language));
  w.u16(static_cast<std::uint16_t>(command.version));
  w.u32(static_cast<std::uint32_t>(command.opaque));
  w.u32(static_cast<std::uint32_t>(command.flag));
  // An empty remark and no remark are the same on this wire: length 0.
  w.u32(static_cast<std::uint32_t>(remark_size));
  if (remark_size > 0) w.bytes(*command.remark);
  w.u32(static_cast<std::uint32_t>(ext_size));
  for (const auto& [key, value] : command.ext_fields) {
    w.u16(static_cast<std::uint16_t>(key.size()));
    w.bytes(key);
    w.u32(static_cast<std::uint32_t>(value.size()));
    w.bytes(value);
  }
  return Status::ok();
}

Result<RemotingCommand> decode_binary_header(std::span<const std::uint8_t> bytes) {
  Cursor in(bytes);
  if (!in.need(kFixedSize, "fixed part")) return Status::corruption(in.error());
  RemotingCommand command;
  command.serialize_type = v1::SerializeType::kRocketMq;
  command.code = in.i16();
  const std::uint8_t language = in.u8();
  command.language = language <= static_cast<std::uint8_t>(v1::LanguageCode::kRust)
                         ? static_cast<v1::LanguageCode>(language)
                         : v1::LanguageCode::kOther;
  command.version = in.i16();
  command.opaque = in.i32();
  command.flag = in.i32();

  std::size_t at = in.offset();
  const std::int32_t remark_size = in.i32();
  if (!in.length(remark_size, "remark length", at)) return Status::corruption(in.error());
  if (remark_size > 0) command.remark = in.text(static_cast<std::size_t>(remark_size));

  if (!in.need(4, "extFields length")) return Status::corruption(in.error());
  at = in.offset();
  const std::int32_t ext_size = in.i32();
  if (!in.length(ext_size, "extFields length", at)) return Status::corruption(in.error());
  const std::size_t ext_end = in.offset() + static_cast<std::size_t>(ext_size);
  // Entries are read against the map's own length: an entry may not run past it.
  Cursor map(bytes.first(ext_end), in.offset());
  command.ext_fields.reserve(count_entries(bytes.first(ext_end), in.offset()));
  while (map.offset() < ext_end) {
    if (!map.need(2, "extFields key length")) return Status::corruption(map.error());
    at = map.offset();
    const std::int16_t key_size = map.i16();
    if (!map.length(key_size, "extFields key length", at)) return Status::corruption(map.error());
    std::string key = map.text(static_cast<std::size_t>(key_size));
    if (!map.need(4, "extFields value length")) return Status::corruption(map.error());
    at = map.offset();
    const std::int32_t value_size = map.i32();
    if (!map.length(value_size, "extFields value length", at)) return Status::corruption(map.error());
    command.ext_fields.set(std::move(key), map.text(static_cast<std::size_t>(value_size)));
  }
  // Bytes after the map are ignored, as the Java decoder does.
  return command;
}

}  // namespace mqkit::plugins::transports::remoting
