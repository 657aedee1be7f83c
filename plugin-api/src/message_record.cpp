#include "mqkit/plugin/v1/message_record.hpp"

#include <arpa/inet.h>
#include <libdeflate.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>

#include "mqkit/plugin/v1/java_hash.hpp"

namespace mqkit::plugin::v1 {

namespace {

constexpr char kNameValueSeparator = '\x01';
constexpr char kPropertySeparator = '\x02';

// Big-endian cursor writers/readers over spans; callers check sizes first.
class Writer {
 public:
  explicit Writer(std::span<std::uint8_t> out) : out_(out) {}
  void i8(std::int8_t v) { out_[pos_++] = static_cast<std::uint8_t>(v); }
  void i16(std::int16_t v) { put(static_cast<std::uint16_t>(v), 2); }
  void i32(std::int32_t v) { put(static_cast<std::uint32_t>(v), 4); }
  void i64(std::int64_t v) { put(static_cast<std::uint64_t>(v), 8); }
  void bytes(std::span<const std::uint8_t> b) {
    if (!b.empty()) std::memcpy(out_.data() + pos_, b.data(), b.size());
    pos_ += b.size();
  }
  void text(std::string_view s) { bytes({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()}); }
  void host(const HostAddress& h) {
    bytes({h.ip.data(), h.is_v6 ? 16u : 4u});
    i32(h.port);
  }
  std::size_t position() const { return pos_; }

 private:
  void put(std::uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) out_[pos_++] = static_cast<std::uint8_t>(v >> (8 * i));
  }
  std::span<std::uint8_t> out_;
  std::size_t pos_ = 0;
};

class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> in) : in_(in) {}
  bool has(std::size_t n) const { return pos_ + n <= in_.size(); }
  std::int8_t i8() { return static_cast<std::int8_t>(in_[pos_++]); }
  std::int16_t i16() { return static_cast<std::int16_t>(get(2)); }
  std::int32_t i32() { return static_cast<std::int32_t>(get(4)); }
  std::int64_t i64() { return static_cast<std::int64_t>(get(8)); }
  std::span<const std::uint8_t> bytes(std::size_t n) {
    auto s = in_.subspan(pos_, n);
    pos_ += n;
    return s;
  }
  HostAddress host(bool v6) {
    HostAddress h;
    h.is_v6 = v6;
    const auto ip = bytes(v6 ? 16 : 4);
    std::memcpy(h.ip.data(), ip.data(), ip.size());
    h.port = i32();
    return h;
  }
  std::size_t position() const { return pos_; }

 private:
  // One load and a byte swap rather than a loop of byte loads: every pulled message reads a
  // dozen fields.
  std::uint64_t get(int n) {
    std::uint64_t v = 0;
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(&v, in_.data() + pos_, static_cast<std::size_t>(n));
      v = __builtin_bswap64(v) >> (64 - 8 * n);
    } else {
      for (int i = 0; i < n; ++i) v = (v << 8) | in_[pos_ + static_cast<std::size_t>(i)];
    }
    pos_ += static_cast<std::size_t>(n);
    return v;
  }
  std::span<const std::uint8_t> in_;
  std::size_t pos_ = 0;
};

std::string_view as_text(std::span<const std::uint8_t> b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

std::int32_t host_size(bool v6) { return v6 ? 20 : 8; }

// Fixed part of a record with IPv4 hosts, without body, topic and properties.
constexpr std::int32_t kFixedSizeV4 = kMinRecordSize;

}  // namespace

void append_property(std::string& out, std::string_view name, std::string_view value) {
  out += name;
  out += kNameValueSeparator;
  out += value;
  out += kPropertySeparator;
}

std::string encode_properties(const Properties& properties) {
  std::size_t size = 0;
  for (const auto& [name, value] : properties) size += encoded_property_size(name, value);
  std::string out;
  out.reserve(size);
  for (const auto& [name, value] : properties) append_property(out, name, value);
  return out;
}

std::optional<std::pair<std::string_view, std::string_view>> next_property(std::string_view& encoded) {
  while (!encoded.empty()) {
    const auto end = encoded.find(kPropertySeparator);
    const std::string_view item = encoded.substr(0, end);
    encoded.remove_prefix(end == std::string_view::npos ? encoded.size() : end + 1);
    const auto sep = item.find(kNameValueSeparator);
    if (sep != std::string_view::npos) return std::pair(item.substr(0, sep), item.substr(sep + 1));
  }
  return std::nullopt;
}

Properties decode_properties(std::string_view encoded) {
  Properties out;
  out.reserve(static_cast<std::size_t>(std::ranges::count(encoded, kPropertySeparator)) + 1);
  while (const auto property = next_property(encoded)) out.emplace_back(property->first, property->second);
  return out;
}

std::optional<std::string_view> find_property(std::string_view encoded, std::string_view name) {
  while (const auto property = next_property(encoded)) {
    if (property->first == name) return property->second;
  }
  return std::nullopt;
}

std::int64_t tags_code_of(std::string_view tags) { return tags.empty() ? 0 : java_string_hash(tags); }

std::int32_t body_crc(std::span<const std::uint8_t> body) {
  // The same CRC-32 as zlib's crc32(), computed with carry-less multiplies where the CPU has them.
  const std::uint32_t crc = libdeflate_crc32(0, body.data(), body.size());
  return static_cast<std::int32_t>(crc & 0x7FFFFFFF);
}

std::int32_t record_size(const MessageToAppend& m) {
  return kFixedSizeV4 + (host_size(m.born_host.is_v6) - 8) + (host_size(m.store_host.is_v6) - 8) +
         static_cast<std::int32_t>(m.body.size() + m.topic.size() + m.properties.size());
}

Status encode_record(const MessageToAppend& m, const RecordPlacement& placement, std::span<std::uint8_t> out) {
  if (m.topic.size() > kMaxTopicLength) {
    return Status::invalid_argument("topic is " + std::to_string(m.topic.size()) + " bytes, the limit is " +
                                    std::to_string(kMaxTopicLength));
  }
  if (m.properties.size() > kMaxPropertiesLength) {
    return Status::invalid_argument("properties are " + std::to_string(m.properties.size()) +
                                    " bytes, the limit is " + std::to_string(kMaxPropertiesLength));
  }
  const std::int32_t size = record_size(m);
  if (out.size() != static_cast<std::size_t>(size)) {
    return Status::internal("record buffer of " + std::to_string(out.size()) + " bytes for a record of " +
                            std::to_string(size));
  }
  std::int32_t flags = m.sys_flag & ~(sys_flag::kBornHostV6 | sys_flag::kStoreHostV6);
  if (m.born_host.is_v6) flags |= sys_flag::kBornHostV6;
  if (m.store_host.is_v6) flags |= sys_flag::kStoreHostV6;
  Writer w(out);
  w.i32(size);
  w.i32(kMessageMagicV1);
  w.i32(body_crc(m.body));
  w.i32(m.queue_id);
  w.i32(m.flag);
  w.i64(placement.queue_offset);
  w.i64(placement.commit_offset);
  w.i32(flags);
  w.i64(m.born_timestamp);
  w.host(m.born_host);
  w.i64(placement.store_timestamp);
  w.host(m.store_host);
  w.i32(m.reconsume_times);
  w.i64(m.prepared_transaction_offset);
  w.i32(static_cast<std::int32_t>(m.body.size()));
  w.bytes(m.body);
  w.i8(static_cast<std::int8_t>(m.topic.size()));
  w.text(m.topic);
  w.i16(static_cast<std::int16_t>(m.properties.size()));
  w.text(m.properties);
  return Status::ok();
}

Result<RecordView> decode_record(std::span<const std::uint8_t> bytes, CrcCheck crc) {
  Reader r(bytes);
  if (!r.has(8)) return Status::corruption("record header truncated: " + std::to_string(bytes.size()) + " bytes");
  RecordView v;
  v.total_size = r.i32();
  v.magic = r.i32();
  if (v.magic == kBlankMagic) return Status::not_found("end-of-file blank");
  if (v.magic != kMessageMagicV1) {
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%08X", static_cast<std::uint32_t>(v.magic));
    return Status::corruption(std::string("bad record magic ") + hex);
  }
  if (v.total_size < kFixedSizeV4 || static_cast<std::size_t>(v.total_size) > bytes.size()) {
    return Status::corruption("record size " + std::to_string(v.total_size) + " does not fit the " +
                              std::to_string(bytes.size()) + " bytes available");
  }
  Reader f(bytes.first(static_cast<std::size_t>(v.total_size)));
  f.bytes(8);
  v.body_crc = f.i32();
  v.queue_id = f.i32();
  v.flag = f.i32();
  v.queue_offset = f.i64();
  v.commit_offset = f.i64();
  v.sys_flag = f.i32();
  v.born_timestamp = f.i64();
  const bool born_v6 = (v.sys_flag & sys_flag::kBornHostV6) != 0;
  const bool store_v6 = (v.sys_flag & sys_flag::kStoreHostV6) != 0;
  const auto lengths_wrong = [&](std::string_view what) {
    return Status::corruption("record at commit offset " + std::to_string(v.commit_offset) + ": " +
                              std::string(what) + " runs past the record size " + std::to_string(v.total_size));
  };
  if (!f.has(static_cast<std::size_t>(host_size(born_v6) + 8 + host_size(store_v6) + 4 + 8 + 4))) {
    return lengths_wrong("header");
  }
  v.born_host = f.host(born_v6);
  v.store_timestamp = f.i64();
  v.store_host = f.host(store_v6);
  v.reconsume_times = f.i32();
  v.prepared_transaction_offset = f.i64();
  const std::int32_t body_length = f.i32();
  if (body_length < 0 || !f.has(static_cast<std::size_t>(body_length) + 1)) return lengths_wrong("body");
  v.body = f.bytes(static_cast<std::size_t>(body_length));
  const std::int32_t topic_length = static_cast<std::uint8_t>(f.i8());
  if (!f.has(static_cast<std::size_t>(topic_length) + 2)) return lengths_wrong("topic");
  v.topic = as_text(f.bytes(static_cast<std::size_t>(topic_length)));
  const std::int32_t properties_length = static_cast<std::uint16_t>(f.i16());
  if (!f.has(static_cast<std::size_t>(properties_length))) return lengths_wrong("properties");
  v.properties = as_text(f.bytes(static_cast<std::size_t>(properties_length)));
  if (f.position() != static_cast<std::size_t>(v.total_size)) {
    return Status::corruption("record at commit offset " + std::to_string(v.commit_offset) + ": fields take " +
                              std::to_string(f.position()) + " bytes, the record says " +
                              std::to_string(v.total_size));
  }
  if (crc == CrcCheck::kVerify && body_crc(v.body) != v.body_crc) {
    return Status::corruption("record at commit offset " + std::to_string(v.commit_offset) +
                              ": body CRC mismatch (stored " + std::to_string(v.body_crc) + ", computed " +
                              std::to_string(body_crc(v.body)) + ")");
  }
  return v;
}

Result<std::vector<std::uint8_t>> with_reconsume_times(std::span<const std::uint8_t> bytes, std::int32_t times) {
  MQKIT_ASSIGN_OR_RETURN(const RecordView view, decode_record(bytes));
  std::vector<std::uint8_t> copy(bytes.begin(), bytes.begin() + view.total_size);
  // total size, magic, body CRC, queue id, flag, queue offset, commit offset, sys flag, born
  // timestamp; born host; store timestamp; store host; then the reconsume times.
  const std::size_t at = 48 + static_cast<std::size_t>(host_size(view.born_host.is_v6)) + 8 +
                         static_cast<std::size_t>(host_size(view.store_host.is_v6));
  const auto value = static_cast<std::uint32_t>(times);
  for (int i = 0; i < 4; ++i) copy[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(value >> (24 - 8 * i));
  return copy;
}

std::string make_offset_message_id(const HostAddress& store_host, std::int64_t commit_offset) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::uint8_t raw[28];
  Writer w(raw);
  w.host(store_host);
  w.i64(commit_offset);
  std::string out(2 * w.position(), '\0');
  for (std::size_t i = 0; i < w.position(); ++i) {
    out[2 * i] = kHex[raw[i] >> 4];
    out[2 * i + 1] = kHex[raw[i] & 0xF];
  }
  return out;
}

Result<OffsetMessageId> parse_offset_message_id(std::string_view id) {
  if (id.size() != 32 && id.size() != 56) {
    return Status::invalid_argument("message id '" + std::string(id) + "' is not 32 or 56 hex digits");
  }
  std::uint8_t raw[28];
  for (std::size_t i = 0; i < id.size() / 2; ++i) {
    auto [ptr, ec] = std::from_chars(id.data() + 2 * i, id.data() + 2 * i + 2, raw[i], 16);
    if (ec != std::errc() || ptr != id.data() + 2 * i + 2) {
      return Status::invalid_argument("message id '" + std::string(id) + "' is not hexadecimal");
    }
  }
  Reader r({raw, id.size() / 2});
  OffsetMessageId out;
  out.store_host = r.host(id.size() == 56);
  out.commit_offset = r.i64();
  return out;
}

Result<std::vector<BatchItem>> decode_batch(std::span<const std::uint8_t> body) {
  std::vector<BatchItem> items;
  Reader r(body);
  while (r.position() < body.size()) {
    const std::size_t start = r.position();
    if (!r.has(20)) return Status::corruption("batch item " + std::to_string(items.size()) + " header truncated");
    const std::int32_t total = r.i32();
    r.i32();  // magic, unused in batches
    r.i32();  // body crc, recomputed by the store
    BatchItem item;
    item.flag = r.i32();
    const std::int32_t body_length = r.i32();
    if (body_length < 0 || !r.has(static_cast<std::size_t>(body_length) + 2)) {
      return Status::corruption("batch item " + std::to_string(items.size()) + " body length " +
                                std::to_string(body_length) + " runs past the batch");
    }
    item.body = r.bytes(static_cast<std::size_t>(body_length));
    const std::int32_t properties_length = static_cast<std::uint16_t>(r.i16());
    if (!r.has(static_cast<std::size_t>(properties_length))) {
      return Status::corruption("batch item " + std::to_string(items.size()) + " properties run past the batch");
    }
    item.properties = as_text(r.bytes(static_cast<std::size_t>(properties_length)));
    if (static_cast<std::size_t>(total) != r.position() - start) {
      return Status::corruption("batch item " + std::to_string(items.size()) + " says " + std::to_string(total) +
                                " bytes but holds " + std::to_string(r.position() - start));
    }
    items.push_back(item);
  }
  return items;
}

namespace {

// Writes a batch item into `out`, which has exactly batch_item_size() bytes.
void write_batch_item(std::span<std::uint8_t> out, std::int32_t flag, std::span<const std::uint8_t> body,
                      std::string_view properties) {
  Writer w(out);
  w.i32(static_cast<std::int32_t>(out.size()));
  w.i32(0);
  w.i32(0);
  w.i32(flag);
  w.i32(static_cast<std::int32_t>(body.size()));
  w.bytes(body);
  w.i16(static_cast<std::int16_t>(properties.size()));
  w.text(properties);
}

}  // namespace

void append_batch_item(std::vector<std::uint8_t>& out, std::int32_t flag, std::span<const std::uint8_t> body,
                       std::string_view properties) {
  const std::size_t start = out.size();
  out.resize(start + batch_item_size(body.size(), properties.size()));
  write_batch_item(std::span<std::uint8_t>(out).subspan(start), flag, body, properties);
}

void append_batch_item(std::string& out, std::int32_t flag, std::span<const std::uint8_t> body,
                       std::string_view properties) {
  const std::size_t start = out.size();
  out.resize(start + batch_item_size(body.size(), properties.size()));
  write_batch_item({reinterpret_cast<std::uint8_t*>(out.data()) + start, out.size() - start}, flag, body, properties);
}

std::string to_string(const HostAddress& address) {
  // "[" + inet_ntop text + "]:" + port. IPv4 (every pulled message, twice) is formatted here
  // rather than through inet_ntop, whose sprintf costs more than the rest of the decoding.
  char text[INET6_ADDRSTRLEN + 16];
  std::size_t n = 0;
  if (address.is_v6) {
    text[n++] = '[';
    inet_ntop(AF_INET6, address.ip.data(), text + n, INET6_ADDRSTRLEN);
    n += strnlen(text + n, INET6_ADDRSTRLEN);
    text[n++] = ']';
  } else {
    for (std::size_t i = 0; i < 4; ++i) {
      const unsigned octet = address.ip[i];
      if (i > 0) text[n++] = '.';
      if (octet >= 100) text[n++] = static_cast<char>('0' + octet / 100);
      if (octet >= 10) text[n++] = static_cast<char>('0' + octet / 10 % 10);
      text[n++] = static_cast<char>('0' + octet % 10);
    }
  }
  text[n++] = ':';
  char* const end = std::to_chars(text + n, text + sizeof text, address.port).ptr;
  return std::string(text, static_cast<std::size_t>(end - text));
}

Result<HostAddress> parse_host_address(std::string_view text) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos) return Status::invalid_argument("address '" + std::string(text) + "' has no port");
  std::string host(text.substr(0, colon));
  HostAddress out;
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
    out.is_v6 = true;
  }
  if (inet_pton(out.is_v6 ? AF_INET6 : AF_INET, host.c_str(), out.ip.data()) != 1) {
    return Status::invalid_argument("address '" + std::string(text) + "' is not a numeric IP address");
  }
  const std::string_view port = text.substr(colon + 1);
  auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), out.port);
  if (ec != std::errc() || ptr != port.data() + port.size() || out.port < 0 || out.port > 65535) {
    return Status::invalid_argument("address '" + std::string(text) + "' has a bad port");
  }
  return out;
}

}  // namespace mqkit::plugin::v1
