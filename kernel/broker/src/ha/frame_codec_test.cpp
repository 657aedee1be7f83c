#include "frame_codec.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace mqkit::broker::ha {
namespace {

using Bytes = std::vector<std::uint8_t>;

// A fake unit of the commit log: its 4-byte big-endian size, then filler.
Bytes unit(std::uint32_t size, std::uint8_t fill) {
  Bytes b(size, fill);
  b[0] = static_cast<std::uint8_t>(size >> 24);
  b[1] = static_cast<std::uint8_t>(size >> 16);
  b[2] = static_cast<std::uint8_t>(size >> 8);
  b[3] = static_cast<std::uint8_t>(size);
  return b;
}

TEST(HaFrameCodecTest, FrameHeaderIsOffsetThenSizeBigEndian) {
  const auto header = encode_frame_header({0x0102030405060708, 0x0A0B0C0D});
  EXPECT_EQ(Bytes(header.begin(), header.end()),
            (Bytes{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x0A, 0x0B, 0x0C, 0x0D}));
  const FrameHeader back = decode_frame_header(header);
  EXPECT_EQ(back.offset, 0x0102030405060708);
  EXPECT_EQ(back.size, 0x0A0B0C0D);
  const auto report = encode_offset_report(4096);
  EXPECT_EQ(Bytes(report.begin(), report.end()), (Bytes{0, 0, 0, 0, 0, 0, 0x10, 0}));
  // RocketMQ's BLANK_MAGIC_CODE -875286124 after the padding's length.
  const auto blank = encode_blank_header(100);
  EXPECT_EQ(Bytes(blank.begin(), blank.end()), (Bytes{0, 0, 0, 100, 0xCB, 0xD4, 0x31, 0x94}));
}

TEST(HaFrameCodecTest, OffsetReportsArriveInPiecesAndTheNewestCounts) {
  OffsetReportReader reader;
  const auto first = encode_offset_report(100);
  const auto second = encode_offset_report(200);
  EXPECT_FALSE(reader.feed(std::span(first.data(), 5)));
  EXPECT_EQ(reader.feed(std::span(first.data() + 5, 3)), 100);
  Bytes both(first.begin(), first.end());
  both.insert(both.end(), second.begin(), second.end());
  both.push_back(0);  // the start of a third
  EXPECT_EQ(reader.feed(both), 200);
  // The byte left over from before starts the next report.
  const auto third = encode_offset_report(300);
  EXPECT_EQ(reader.feed(std::span(third.data() + 1, 7)), 300);
}

TEST(HaFrameCodecTest, DecoderCutsFramesAcrossReadsAndRefusesImpossibleSizes) {
  Bytes stream;
  for (const auto& [offset, body] : {std::pair<std::int64_t, Bytes>{0, Bytes{1, 2, 3}}, {3, Bytes{}}, {3, Bytes{4}}}) {
    const auto header = encode_frame_header({offset, static_cast<std::int32_t>(body.size())});
    stream.insert(stream.end(), header.begin(), header.end());
    stream.insert(stream.end(), body.begin(), body.end());
  }
  FrameDecoder decoder(1024);
  std::vector<std::pair<FrameHeader, Bytes>> frames;
  for (std::size_t at = 0; at < stream.size(); at += 5) {
    const auto piece = std::span(stream).subspan(at, std::min<std::size_t>(5, stream.size() - at));
    ASSERT_TRUE(decoder.feed(piece, [&](FrameHeader h, std::span<const std::uint8_t> body) {
      frames.emplace_back(h, Bytes(body.begin(), body.end()));
      return plugin::v1::Status::ok();
    }));
  }
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[0].second, (Bytes{1, 2, 3}));
  EXPECT_EQ(frames[1].first.size, 0);  // a heartbeat
  EXPECT_EQ(frames[2].first.offset, 3);

  FrameDecoder strict(16);
  const auto huge = encode_frame_header({0, 17});
  EXPECT_FALSE(strict.feed(huge, [](FrameHeader, std::span<const std::uint8_t>) { return plugin::v1::Status::ok(); }));
}

TEST(HaFrameCodecTest, ReplicaBufferHandsOutWholeUnitsOnly) {
  ReplicaBuffer buffer(1000, 1 << 20);
  Bytes stream = unit(20, 0xAA);
  const Bytes second = unit(30, 0xBB);
  stream.insert(stream.end(), second.begin(), second.end());
  // A master cuts frames anywhere: 25 bytes, then the rest.
  ASSERT_TRUE(buffer.add({1000, 25}, std::span(stream).first(25)));
  auto units = buffer.whole_units();
  ASSERT_TRUE(units.is_ok());
  EXPECT_EQ(units->size(), 20u);
  buffer.consumed(20);
  EXPECT_EQ(buffer.start_offset(), 1020);
  EXPECT_EQ(buffer.next_offset(), 1025);
  ASSERT_TRUE(buffer.add({1025, 25}, std::span(stream).subspan(25)));
  units = buffer.whole_units();
  ASSERT_TRUE(units.is_ok());
  EXPECT_EQ(Bytes(units->begin(), units->end()), second);
  buffer.consumed(units->size());
  EXPECT_EQ(buffer.start_offset(), 1050);
}

TEST(HaFrameCodecTest, AnEmptyReplicaStartsWhereTheMasterStarts) {
  ReplicaBuffer buffer(0, 1 << 20);
  // A heartbeat names where the bytes will start; the first bytes fix it.
  ASSERT_TRUE(buffer.add({4096, 0}, {}).is_ok());
  const std::vector<std::uint8_t> unit = {0, 0, 0, 8, 1, 2, 3, 4};
  ASSERT_TRUE(buffer.add({8192, 8}, unit).is_ok());
  EXPECT_EQ(buffer.start_offset(), 8192);
  EXPECT_EQ(buffer.next_offset(), 8200);
  EXPECT_FALSE(buffer.add({0, 8}, unit).is_ok());  // from then on, frames must follow
  // A replica that has a log checks from the first frame.
  ReplicaBuffer resumed(100, 1 << 20);
  EXPECT_FALSE(resumed.add({8192, 8}, unit).is_ok());
}

TEST(HaFrameCodecTest, ReplicaBufferRefusesGapsOverlapsAndBadSizes) {
  ReplicaBuffer buffer(1000, 64);
  const auto gap = buffer.add({1008, 0}, {});
  ASSERT_FALSE(gap);
  EXPECT_NE(gap.message().find("1008"), std::string::npos);
  EXPECT_NE(gap.message().find("1000"), std::string::npos);
  EXPECT_FALSE(buffer.add({992, 0}, {}));
  EXPECT_TRUE(buffer.add({1000, 0}, {}));  // a heartbeat where the log ends
  const Bytes too_big = unit(65, 0);
  ASSERT_TRUE(buffer.add({1000, 8}, std::span(too_big).first(8)));
  EXPECT_FALSE(buffer.whole_units().is_ok());
}

}  // namespace
}  // namespace mqkit::broker::ha
