#include "frame_codec.hpp"

#include <algorithm>

#include "mqkit/plugin/v1/message_record.hpp"

namespace mqkit::broker::ha {

using plugin::v1::Result;
using plugin::v1::Status;

namespace {

void store_be(std::uint8_t* out, std::uint64_t value, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; ++i) out[i] = static_cast<std::uint8_t>(value >> (8 * (bytes - 1 - i)));
}

std::uint64_t load_be(const std::uint8_t* in, std::size_t bytes) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < bytes; ++i) value = (value << 8) | in[i];
  return value;
}

}  // namespace

std::array<std::uint8_t, kFrameHeaderSize> encode_frame_header(FrameHeader header) {
  std::array<std::uint8_t, kFrameHeaderSize> out{};
  store_be(out.data(), static_cast<std::uint64_t>(header.offset), 8);
  store_be(out.data() + 8, static_cast<std::uint32_t>(header.size), 4);
  return out;
}

FrameHeader decode_frame_header(std::span<const std::uint8_t, kFrameHeaderSize> bytes) {
  return {static_cast<std::int64_t>(load_be(bytes.data(), 8)),
          static_cast<std::int32_t>(static_cast<std::uint32_t>(load_be(bytes.data() + 8, 4)))};
}

std::array<std::uint8_t, kOffsetReportSize> encode_offset_report(std::int64_t offset) {
  std::array<std::uint8_t, kOffsetReportSize> out{};
  store_be(out.data(), static_cast<std::uint64_t>(offset), 8);
  return out;
}

std::array<std::uint8_t, 8> encode_blank_header(std::int32_t length) {
  std::array<std::uint8_t, 8> out{};
  store_be(out.data(), static_cast<std::uint32_t>(length), 4);
  store_be(out.data() + 4, static_cast<std::uint32_t>(plugin::v1::kBlankMagic), 4);
  return out;
}

std::optional<std::int64_t> OffsetReportReader::feed(std::span<const std::uint8_t> bytes) {
  std::optional<std::int64_t> newest;
  for (const std::uint8_t b : bytes) {
    partial_[partial_size_++] = b;
    if (partial_size_ == kOffsetReportSize) {
      newest = static_cast<std::int64_t>(load_be(partial_.data(), 8));
      partial_size_ = 0;
    }
  }
  return newest;
}

Status ReplicaBuffer::add(FrameHeader header, std::span<const std::uint8_t> body) {
  if (takes_first_offset_ && header.offset >= 0) {
    start_ = header.offset;
    takes_first_offset_ = body.empty();
  }
  if (header.offset != next_offset()) {
    return Status::corruption("the master sent commit log bytes from offset " + std::to_string(header.offset) +
                              " but this slave's log continues at " + std::to_string(next_offset()));
  }
  bytes_.insert(bytes_.end(), body.begin(), body.end());
  return Status::ok();
}

Result<std::span<const std::uint8_t>> ReplicaBuffer::whole_units() const {
  std::size_t end = 0;
  while (bytes_.size() - end >= 4) {
    const auto size = static_cast<std::int32_t>(static_cast<std::uint32_t>(load_be(bytes_.data() + end, 4)));
    if (size < 8 || size > max_unit_size_) {
      return Status::corruption("replicated bytes at commit offset " +
                                std::to_string(start_ + static_cast<std::int64_t>(end)) +
                                " begin a record or blank of impossible size " + std::to_string(size));
    }
    if (bytes_.size() - end < static_cast<std::size_t>(size)) break;
    end += static_cast<std::size_t>(size);
  }
  return std::span<const std::uint8_t>(bytes_.data(), end);
}

void ReplicaBuffer::consumed(std::size_t bytes) {
  bytes = std::min(bytes, bytes_.size());
  bytes_.erase(bytes_.begin(), bytes_.begin() + static_cast<std::ptrdiff_t>(bytes));
  start_ += static_cast<std::int64_t>(bytes);
}

}  // namespace mqkit::broker::ha
