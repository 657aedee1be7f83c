// The replication wire format of RocketMQ 4.x HA (rocketmq-facts §5.12, docs/replication.md), in
// one place. No RemotingCommand framing on the HA port:
//   slave → master: its commit log max offset, 8 bytes big-endian, repeated (an ack and a
//                   heartbeat at once; the first one says where the transfer starts);
//   master → slave: frames of 8-byte commit offset | 4-byte size | `size` commit log bytes,
//                   size 0 being a heartbeat.
// No Asio and no threads here, so the codec is tested alone.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::broker::ha {

inline constexpr std::size_t kFrameHeaderSize = 12;
inline constexpr std::size_t kOffsetReportSize = 8;

struct FrameHeader {
  std::int64_t offset = 0;
  std::int32_t size = 0;
};

std::array<std::uint8_t, kFrameHeaderSize> encode_frame_header(FrameHeader header);
FrameHeader decode_frame_header(std::span<const std::uint8_t, kFrameHeaderSize> bytes);
std::array<std::uint8_t, kOffsetReportSize> encode_offset_report(std::int64_t offset);
// The header of the padding that ends a commit log file: its length (to the end of the file)
// and the blank magic code; the rest of the padding is zeros.
std::array<std::uint8_t, 8> encode_blank_header(std::int32_t length);

// Master side: the slave's reports arrive in arbitrary pieces; like RocketMQ, only the newest
// whole report of what arrived counts (each report supersedes the ones before it).
class OffsetReportReader {
 public:
  // The newest whole report completed by `bytes`, if any.
  std::optional<std::int64_t> feed(std::span<const std::uint8_t> bytes);

 private:
  std::array<std::uint8_t, kOffsetReportSize> partial_{};
  std::size_t partial_size_ = 0;
};

// Slave side: cuts the received stream into frames. A frame body larger than `max_body` is a
// protocol error (a stream that is not RocketMQ HA, or a corrupt one).
class FrameDecoder {
 public:
  explicit FrameDecoder(std::size_t max_body) : max_body_(max_body) {}
  // Calls `on_frame` for every frame completed by `bytes`, in order; stops at its first error.
  template <typename OnFrame>
  plugin::v1::Status feed(std::span<const std::uint8_t> bytes, OnFrame&& on_frame) {
    pending_.insert(pending_.end(), bytes.begin(), bytes.end());
    std::size_t at = 0;
    plugin::v1::Status status;
    while (status.is_ok() && pending_.size() - at >= kFrameHeaderSize) {
      const FrameHeader header = decode_frame_header(std::span<const std::uint8_t, kFrameHeaderSize>(
          pending_.data() + at, kFrameHeaderSize));
      if (header.size < 0 || static_cast<std::size_t>(header.size) > max_body_) {
        status = plugin::v1::Status::corruption("replication frame at commit offset " + std::to_string(header.offset) +
                                                " has an impossible size " + std::to_string(header.size));
        break;
      }
      const std::size_t whole = kFrameHeaderSize + static_cast<std::size_t>(header.size);
      if (pending_.size() - at < whole) break;
      status = on_frame(header, std::span<const std::uint8_t>(pending_.data() + at + kFrameHeaderSize,
                                                              static_cast<std::size_t>(header.size)));
      at += whole;
    }
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(at));
    return status;
  }
  void reset() { pending_.clear(); }

 private:
  std::size_t max_body_;
  std::vector<std::uint8_t> pending_;
};

// Slave side: the commit log bytes received but not yet stored. Frames may cut records anywhere
// (a RocketMQ master cuts at its batch size); the store takes whole records and end-of-file
// blanks only, and both begin with their 4-byte size, so the buffer hands out the longest run of
// whole units at its front.
class ReplicaBuffer {
 public:
  // `next_offset`: the store's max offset, where the first frame must start. A store whose log
  // is empty (0) takes the master's first offset instead (RocketMQ's HAClient checks offsets only
  // once the slave has some): a master starts an empty slave at its last commit log file.
  ReplicaBuffer(std::int64_t next_offset, std::int64_t max_unit_size)
      : start_(next_offset), max_unit_size_(max_unit_size), takes_first_offset_(next_offset == 0) {}

  // The commit offset the next frame must carry.
  std::int64_t next_offset() const noexcept { return start_ + static_cast<std::int64_t>(bytes_.size()); }
  // Adds a frame's bytes. A frame that does not continue where the last one ended is an error
  // naming both offsets (a gap or an overlap: the logs disagree).
  plugin::v1::Status add(FrameHeader header, std::span<const std::uint8_t> body);
  // Whole records and blanks at the front (possibly none), starting at start_offset(); an error
  // when a unit's size field is impossible.
  plugin::v1::Result<std::span<const std::uint8_t>> whole_units() const;
  std::int64_t start_offset() const noexcept { return start_; }
  // The first `bytes` were stored.
  void consumed(std::size_t bytes);

 private:
  std::int64_t start_;
  std::int64_t max_unit_size_;
  bool takes_first_offset_;  // until the first bytes arrive
  std::vector<std::uint8_t> bytes_;
};

}  // namespace mqkit::broker::ha
