#include "transports/remoting/codec/frame_codec.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "transports/remoting/codec/byte_order.hpp"
#include "transports/remoting/codec/header_codec.hpp"

namespace mqkit::plugins::transports::remoting {

namespace {

using v1::RemotingCommand;
using v1::Result;
using v1::Status;

constexpr std::size_t kPrefixSize = 8;  // length + header word
constexpr std::size_t kReadChunk = 64 * 1024;
// A frame's remaining bytes are requested in steps of at most this much, so a peer announcing
// a huge frame does not make us reserve all of it before sending it.
constexpr std::size_t kMaxReadStep = 1024 * 1024;
// Room reserved for a header up front, so that the prefix and most headers (a send's binary
// header is ~150–250 bytes) take one allocation; a longer header grows the buffer once.
constexpr std::size_t kUsualHeaderSize = 248;
// Buffers that grew past this for one large frame are released once drained.
constexpr std::size_t kKeepCapacity = 1024 * 1024;

std::string hex32(std::uint32_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s = "0x00000000";
  for (int i = 9; i >= 2; --i, v >>= 4) s[static_cast<std::size_t>(i)] = kDigits[v & 0xF];
  return s;
}

}  // namespace

std::size_t EncodedFrame::size() const noexcept {
  std::size_t n = head.size() + body.size();
  for (const auto& slice : slices) n += slice.bytes.size();
  return n;
}

Status frame_too_long(std::uint64_t length, std::size_t max_frame_size) {
  return Status::resource_exhausted("frame length " + std::to_string(length) + " exceeds the maximum " +
                                    std::to_string(max_frame_size));
}

Result<EncodedFrame> encode_frame(RemotingCommand command, std::size_t max_frame_size) {
  EncodedFrame frame;
  frame.head.reserve(kPrefixSize + kUsualHeaderSize);
  frame.head.resize(kPrefixSize);
  MQKIT_RETURN_IF_ERROR(append_header(command, &frame.head));
  const std::size_t header_size = frame.head.size() - kPrefixSize;
  if (header_size > kMaxHeaderSize) {
    return Status::invalid_argument("header of " + std::to_string(header_size) +
                                    " bytes does not fit the 24-bit header length");
  }
  const std::uint64_t length = 4 + header_size + command.body_size();
  if (length > std::min(max_frame_size, kMaxLengthField)) return frame_too_long(length, max_frame_size);
  const auto type = static_cast<std::uint32_t>(command.serialize_type);
  store_u32(frame.head.data(), static_cast<std::uint32_t>(length));
  store_u32(frame.head.data() + 4, (type << 24) | static_cast<std::uint32_t>(header_size));
  frame.body = std::move(command.body);
  frame.slices = std::move(command.body_slices);
  return frame;
}

void drop_front(EncodedFrame& frame, std::size_t n) {
  auto take = [&n](std::vector<std::uint8_t>& bytes) {
    const std::size_t k = std::min(n, bytes.size());
    bytes.erase(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(k));
    n -= k;
  };
  take(frame.head);
  take(frame.body);
  for (auto& slice : frame.slices) {
    const std::size_t k = std::min(n, slice.bytes.size());
    slice.bytes = slice.bytes.subspan(k);
    n -= k;
  }
}

std::vector<std::uint8_t> flatten(const EncodedFrame& frame) {
  std::vector<std::uint8_t> out;
  out.reserve(frame.size());
  frame.for_each_part([&](const std::uint8_t* data, std::size_t size) { out.insert(out.end(), data, data + size); });
  return out;
}

FrameDecoder::FrameDecoder(std::size_t max_frame_size)
    : max_frame_size_(std::min(max_frame_size, kMaxLengthField)) {}

std::span<std::uint8_t> FrameDecoder::prepare(std::size_t min_size) {
  if (begin_ == end_) begin_ = end_ = 0;
  if (capacity_ - end_ < min_size && begin_ > 0) {
    std::memmove(data_.get(), data_.get() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (capacity_ - end_ < min_size) {
    const std::size_t capacity = std::max({capacity_ * 2, end_ + min_size, kReadChunk});
    auto grown = std::make_unique_for_overwrite<std::uint8_t[]>(capacity);
    if (end_ > 0) std::memcpy(grown.get(), data_.get(), end_);
    data_ = std::move(grown);
    capacity_ = capacity;
  }
  return {data_.get() + end_, capacity_ - end_};
}

void FrameDecoder::commit(std::size_t n) noexcept { end_ = std::min(end_ + n, capacity_); }

void FrameDecoder::feed(std::span<const std::uint8_t> bytes) {
  if (bytes.empty()) return;
  std::memcpy(prepare(bytes.size()).data(), bytes.data(), bytes.size());
  commit(bytes.size());
}

std::size_t FrameDecoder::read_hint() const noexcept {
  const std::size_t available = buffered_bytes();
  if (available < 4 || !error_.is_ok()) return kReadChunk;
  const auto length = static_cast<std::size_t>(load_u32(data_.get() + begin_));
  const std::size_t missing = length + 4 > available ? length + 4 - available : 0;
  return std::clamp(missing, kReadChunk, kMaxReadStep);
}

Status FrameDecoder::fail(Status status) {
  error_ = status;
  return status;
}

Status FrameDecoder::check_prefix(std::size_t available) {
  const std::int32_t length = load_i32(data_.get() + begin_);
  if (length < 4) {
    return fail(Status::corruption("frame length " + std::to_string(length) +
                                   " is below 4, the size of the header word it must include"));
  }
  if (static_cast<std::size_t>(length) > max_frame_size_) return fail(frame_too_long(static_cast<std::uint64_t>(length), max_frame_size_));
  if (available < kPrefixSize) return Status::ok();
  const std::uint32_t word = load_u32(data_.get() + begin_ + 4);
  v1::SerializeType type;
  if (!serialize_type_from_byte(static_cast<std::uint8_t>(word >> 24), &type)) {
    return fail(Status::corruption("unknown serialize type " + std::to_string(word >> 24) + " in header word " +
                                   hex32(word)));
  }
  const std::size_t header_size = word & kMaxHeaderSize;
  if (header_size > static_cast<std::size_t>(length) - 4) {
    return fail(Status::corruption("header length " + std::to_string(header_size) + " exceeds the frame length " +
                                   std::to_string(length) + " minus 4"));
  }
  return Status::ok();
}

Result<std::optional<RemotingCommand>> FrameDecoder::next() {
  if (!error_.is_ok()) return error_;
  const std::size_t available = buffered_bytes();
  if (available < 4) return std::optional<RemotingCommand>();
  MQKIT_RETURN_IF_ERROR(check_prefix(available));
  const auto length = static_cast<std::size_t>(load_u32(data_.get() + begin_));
  if (available < 4 + length) return std::optional<RemotingCommand>();

  const std::uint8_t* frame = data_.get() + begin_;
  const std::uint32_t word = load_u32(frame + 4);
  const std::size_t header_size = word & kMaxHeaderSize;
  v1::SerializeType type = v1::SerializeType::kJson;
  (void)serialize_type_from_byte(static_cast<std::uint8_t>(word >> 24), &type);  // checked above
  auto command = decode_header(type, {frame + kPrefixSize, header_size});
  if (!command.is_ok()) return fail(command.status());
  const std::uint8_t* body = frame + kPrefixSize + header_size;
  command->body.assign(body, frame + 4 + length);
  begin_ += 4 + length;
  ++frames_decoded_;
  release_if_large();
  return std::optional<RemotingCommand>(std::move(command).value());
}

void FrameDecoder::release_if_large() noexcept {
  if (begin_ != end_ || capacity_ <= kKeepCapacity) return;
  data_.reset();
  capacity_ = begin_ = end_ = 0;
}

}  // namespace mqkit::plugins::transports::remoting
