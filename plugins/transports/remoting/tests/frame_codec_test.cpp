// Framing: incremental decoding across arbitrary splits, every frame-level error (named
// precisely), frame-size limits on both sides, and zero-copy body slices.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "codec_test_util.hpp"
#include "transports/remoting/codec/frame_codec.hpp"
#include "transports/remoting/codec/header_codec.hpp"

namespace mqkit::plugins::transports::remoting::testing {
namespace {

using v1::RemotingCommand;
using v1::SerializeType;
using v1::StatusCode;

RemotingCommand decode_one(FrameDecoder& decoder) {
  auto next = decoder.next();
  EXPECT_TRUE(next.is_ok()) << next.status().to_string();
  EXPECT_TRUE(next.is_ok() && next->has_value());
  return next.is_ok() && next->has_value() ? std::move(**next) : RemotingCommand{};
}

// Feeds `bytes` and returns the error the decoder reports (failing the test if there is none).
v1::Status decode_error(const Bytes& bytes, std::size_t max_frame = kDefaultMaxFrameSize) {
  FrameDecoder decoder(max_frame);
  decoder.feed(bytes);
  for (int i = 0; i < 8; ++i) {
    auto next = decoder.next();
    if (!next.is_ok()) {
      // The decoder stays failed.
      EXPECT_EQ(decoder.next().status().message(), next.status().message());
      return next.status();
    }
    if (!next->has_value()) break;
  }
  ADD_FAILURE() << "no decode error";
  return v1::Status::ok();
}

TEST(FrameDecoder, WaitsForWholeFramesFedByteByByte) {
  const Bytes frames = [] {
    Bytes all = json_frame(R"({"code":1,"opaque":1})", "body-1");
    const Bytes second = json_frame(R"({"code":2,"opaque":2})");
    all.insert(all.end(), second.begin(), second.end());
    return all;
  }();
  FrameDecoder decoder;
  std::vector<RemotingCommand> out;
  for (std::uint8_t byte : frames) {
    decoder.feed({&byte, 1});
    auto next = decoder.next();
    ASSERT_TRUE(next.is_ok()) << next.status().to_string();
    if (next->has_value()) out.push_back(std::move(**next));
  }
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].code, 1);
  EXPECT_EQ(std::string(out[0].body.begin(), out[0].body.end()), "body-1");
  EXPECT_EQ(out[1].code, 2);
  EXPECT_TRUE(out[1].body.empty());
  EXPECT_EQ(decoder.frames_decoded(), 2u);
  EXPECT_EQ(decoder.buffered_bytes(), 0u);
}

TEST(FrameDecoder, ManyFramesInOneRead) {
  Bytes stream;
  for (int i = 0; i < 100; ++i) {
    const Bytes f = json_frame(R"({"code":)" + std::to_string(i) + "}", std::string(static_cast<std::size_t>(i), 'x'));
    stream.insert(stream.end(), f.begin(), f.end());
  }
  FrameDecoder decoder;
  decoder.feed(stream);
  for (int i = 0; i < 100; ++i) {
    const RemotingCommand c = decode_one(decoder);
    EXPECT_EQ(c.code, i);
    EXPECT_EQ(c.body.size(), static_cast<std::size_t>(i));
  }
  auto end = decoder.next();
  ASSERT_TRUE(end.is_ok());
  EXPECT_FALSE(end->has_value());
}

TEST(FrameDecoder, PrepareAndCommitReadInPlace) {
  const Bytes frame = json_frame(R"({"code":7})", std::string(300'000, 'b'));
  FrameDecoder decoder;
  std::size_t offset = 0;
  while (offset < frame.size()) {
    auto area = decoder.prepare(decoder.read_hint());
    ASSERT_GE(area.size(), decoder.read_hint());
    const std::size_t n = std::min(area.size(), frame.size() - offset);
    std::copy_n(frame.begin() + static_cast<std::ptrdiff_t>(offset), n, area.begin());
    decoder.commit(n);
    offset += n;
    if (offset < frame.size()) {
      auto next = decoder.next();
      ASSERT_TRUE(next.is_ok());
      EXPECT_FALSE(next->has_value());
      EXPECT_GE(decoder.read_hint(), 64u * 1024);
      EXPECT_LE(decoder.read_hint(), 1024u * 1024);
    }
  }
  EXPECT_EQ(decode_one(decoder).body.size(), 300'000u);
}

TEST(FrameDecoder, LengthBelowFour) {
  for (const char* hex : {"00000000", "00000003", "ffffffff", "80000000"}) {
    const v1::Status status = decode_error(from_hex(hex));
    EXPECT_EQ(status.code(), StatusCode::kCorruption) << hex;
    EXPECT_NE(status.message().find("is below 4"), std::string::npos) << status.message();
  }
  EXPECT_EQ(decode_error(from_hex("ffffffff")).message(),
            "frame length -1 is below 4, the size of the header word it must include");
}

TEST(FrameDecoder, LengthAboveTheMaximumIsRefusedFromTheFirstFourBytes) {
  const v1::Status status = decode_error(from_hex("01312d00"));  // 20000000
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(status.message(), "frame length 20000000 exceeds the maximum 16777216");
  EXPECT_EQ(decode_error(from_hex("00000401"), 1024).message(), "frame length 1025 exceeds the maximum 1024");
  // Exactly at the limit is fine (a frame of 1024 bytes after the length field).
  FrameDecoder decoder(1024);
  decoder.feed(json_frame(R"({"code":1})", std::string(1024 - 4 - 10, 'z')));
  EXPECT_EQ(decode_one(decoder).body.size(), 1010u);
}

TEST(FrameDecoder, HeaderLongerThanTheFrame) {
  EXPECT_EQ(decode_error(from_hex("00000010 00000020")).message(),
            "header length 32 exceeds the frame length 16 minus 4");
}

TEST(FrameDecoder, UnknownSerializeType) {
  EXPECT_EQ(decode_error(from_hex("00000010 0200000c")).message(),
            "unknown serialize type 2 in header word 0x0200000c");
  EXPECT_EQ(decode_error(from_hex("00000010 ff00000c")).message(),
            "unknown serialize type 255 in header word 0xff00000c");
}

TEST(FrameDecoder, MalformedHeadersInsideAFrame) {
  EXPECT_EQ(decode_error(json_frame(R"({"opaque":1})")).message(), "JSON header: no 'code' field");
  EXPECT_EQ(decode_error(json_frame(R"({"code":)")).code(), StatusCode::kCorruption);
  EXPECT_EQ(decode_error(make_frame(1, from_hex("0001 00 0000"))).message(),
            "binary header: fixed part at offset 0 needs 17 bytes, 5 left");
  EXPECT_EQ(decode_error(make_frame(0, {})).message(), "JSON header: malformed at byte 0: The document is empty.");
  // An error in the second frame surfaces after the first is delivered.
  Bytes two = json_frame(R"({"code":1})");
  const Bytes bad = from_hex("00000002");
  two.insert(two.end(), bad.begin(), bad.end());
  FrameDecoder decoder;
  decoder.feed(two);
  EXPECT_EQ(decode_one(decoder).code, 1);
  EXPECT_FALSE(decoder.next().is_ok());
}

TEST(EncodeFrame, RefusesFramesOverTheMaximum) {
  RemotingCommand c = RemotingCommand::request(10);
  c.body.assign(2000, 'x');
  Bytes header;
  ASSERT_TRUE(append_header(c, &header).is_ok());
  auto frame = encode_frame(c, 1024);
  ASSERT_FALSE(frame.is_ok());
  EXPECT_EQ(frame.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(frame.status().message(),
            "frame length " + std::to_string(4 + header.size() + 2000) + " exceeds the maximum 1024");
}

TEST(EncodeFrame, BodySlicesFollowTheBodyWithoutCopies) {
  static const std::string kFirst = "first-slice|";
  auto owner = std::make_shared<std::string>(std::string(100'000, 's'));
  RemotingCommand c = RemotingCommand::request(11);
  c.serialize_type = SerializeType::kRocketMq;
  c.body = {'B', '|'};
  c.body_slices.push_back({{reinterpret_cast<const std::uint8_t*>(kFirst.data()), kFirst.size()}, nullptr});
  c.body_slices.push_back({{reinterpret_cast<const std::uint8_t*>(owner->data()), owner->size()}, owner});
  const long owners_before = owner.use_count();

  auto frame = encode_frame(std::move(c));
  ASSERT_TRUE(frame.is_ok()) << frame.status().to_string();
  EXPECT_EQ(frame->slices.size(), 2u);
  EXPECT_EQ(frame->slices[1].bytes.data(), reinterpret_cast<const std::uint8_t*>(owner->data()));
  EXPECT_EQ(owner.use_count(), owners_before) << "the frame holds the slice's keep_alive";

  FrameDecoder decoder;
  decoder.feed(flatten(*frame));
  const RemotingCommand decoded = decode_one(decoder);
  EXPECT_EQ(std::string(decoded.body.begin(), decoded.body.end()), "B|" + kFirst + *owner);
  frame = v1::Status::internal("drop the frame");
  EXPECT_EQ(owner.use_count(), owners_before - 1);
}

TEST(EncodeFrame, DropFrontLeavesExactlyTheUnwrittenRest) {
  static const std::string kSlice = "slice-one|";
  auto owner = std::make_shared<std::string>("slice-two");
  RemotingCommand c = RemotingCommand::request(11);
  c.body = {'b', 'o', 'd', 'y'};
  c.body_slices.push_back({{reinterpret_cast<const std::uint8_t*>(kSlice.data()), kSlice.size()}, nullptr});
  c.body_slices.push_back({{reinterpret_cast<const std::uint8_t*>(owner->data()), owner->size()}, owner});
  auto encoded = encode_frame(std::move(c));
  ASSERT_TRUE(encoded.is_ok()) << encoded.status().to_string();
  const Bytes whole = flatten(*encoded);
  // Every cut: inside the head, the body, either slice, and at each boundary.
  for (std::size_t n = 0; n <= whole.size(); ++n) {
    EncodedFrame rest = *encoded;
    drop_front(rest, n);
    EXPECT_EQ(rest.size(), whole.size() - n) << "cut at " << n;
    EXPECT_EQ(flatten(rest), Bytes(whole.begin() + static_cast<std::ptrdiff_t>(n), whole.end())) << "cut at " << n;
  }
}

}  // namespace
}  // namespace mqkit::plugins::transports::remoting::testing
