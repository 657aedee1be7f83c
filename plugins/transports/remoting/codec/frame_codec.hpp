// Remoting frames: [int32 length][int32 serializeType << 24 | headerLength][header][body], big
// endian, where length counts everything after itself. encode_frame turns a command into the
// pieces a gather write sends; FrameDecoder turns a byte stream back into commands.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "mqkit/plugin/v1/buffer.hpp"
#include "mqkit/plugin/v1/remoting_command.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::plugins::transports::remoting {

namespace v1 = ::mqkit::plugin::v1;

inline constexpr std::size_t kDefaultMaxFrameSize = 16 * 1024 * 1024;
// The header length has 24 bits in the header word.
inline constexpr std::size_t kMaxHeaderSize = 0xFFFFFF;
// The length field is a signed 32-bit integer.
inline constexpr std::size_t kMaxLengthField = 0x7FFFFFFF;

// A frame ready for a gather write: `head` (length, header word, header) followed by `body` and
// `slices`. The slices are not copied; the frame holds their keep_alive until it is destroyed.
struct EncodedFrame {
  std::vector<std::uint8_t> head;
  std::vector<std::uint8_t> body;
  std::vector<v1::StoredSlice> slices;

  std::size_t size() const noexcept;
  // Calls visit(const std::uint8_t* data, std::size_t size) for each non-empty part, in wire
  // order: what a gather write hands to the socket.
  template <typename Visit>
  void for_each_part(Visit&& visit) const {
    if (!head.empty()) visit(head.data(), head.size());
    if (!body.empty()) visit(body.data(), body.size());
    for (const auto& slice : slices) {
      if (!slice.bytes.empty()) visit(slice.bytes.data(), slice.bytes.size());
    }
  }
};

// Consumes `command` (body and slices are moved, not copied). ResourceExhausted when the frame
// would be larger than `max_frame_size` (compared with the length field, as the decoder does);
// InvalidArgument when the header cannot be encoded.
v1::Result<EncodedFrame> encode_frame(v1::RemotingCommand command, std::size_t max_frame_size = kDefaultMaxFrameSize);

// Drops the first `n` bytes (at most size()) of `frame`: what a partial write took already.
void drop_front(EncodedFrame& frame, std::size_t n);

// The frame as one contiguous byte string (tests, fuzzing).
std::vector<std::uint8_t> flatten(const EncodedFrame& frame);

// The message every "too long" check uses, on either side of the wire.
v1::Status frame_too_long(std::uint64_t length, std::size_t max_frame_size);

// Incremental decoder for one connection. Bytes go in with prepare()/commit() (read straight
// into the decoder's buffer) or feed(); whole frames come out of next(). The length and header
// word are checked as soon as they arrive, so an oversized frame is refused before its body is
// read. After an error the decoder stays failed: the connection must be closed.
class FrameDecoder {
 public:
  explicit FrameDecoder(std::size_t max_frame_size = kDefaultMaxFrameSize);

  // A writable area of at least `min_size` bytes at the end of the buffered data.
  std::span<std::uint8_t> prepare(std::size_t min_size);
  // Marks `n` bytes of the area returned by prepare() as filled.
  void commit(std::size_t n) noexcept;
  void feed(std::span<const std::uint8_t> bytes);

  // The next whole frame, nullopt when more bytes are needed, or the error that ends the stream.
  v1::Result<std::optional<v1::RemotingCommand>> next();

  // How many bytes a read should ask for: the rest of the current frame (within bounds), so a
  // large frame arrives in few reads without reserving its full size up front.
  std::size_t read_hint() const noexcept;
  std::size_t buffered_bytes() const noexcept { return end_ - begin_; }
  std::uint64_t frames_decoded() const noexcept { return frames_decoded_; }

 private:
  v1::Status check_prefix(std::size_t available);
  v1::Status fail(v1::Status status);
  void release_if_large() noexcept;

  std::size_t max_frame_size_;
  std::unique_ptr<std::uint8_t[]> data_;
  std::size_t capacity_ = 0;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  std::uint64_t frames_decoded_ = 0;
  v1::Status error_;
};

}  // namespace mqkit::plugins::transports::remoting
