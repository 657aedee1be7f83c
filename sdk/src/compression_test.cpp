#include "mqkit/client/compression.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include "mqkit/client/message_ext.hpp"
#include "mqkit/plugin/v1/message_record.hpp"

namespace mqkit::client {
namespace {

namespace v1 = plugin::v1;

std::string sample_text(std::size_t size) {
  std::string text;
  while (text.size() < size) text += "the quick brown fox " + std::to_string(text.size()) + "; ";
  text.resize(size);
  return text;
}

std::span<const std::uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

TEST(CompressionTest, RoundTripsThroughZlib) {
  const std::string body = sample_text(100'000);
  auto compressed = zlib_compress(body, 5);
  ASSERT_TRUE(compressed.is_ok());
  EXPECT_LT(compressed->size(), body.size());
  EXPECT_EQ(static_cast<unsigned char>((*compressed)[0]), 0x78);  // zlib header, as java.util.zip writes
  auto inflated = zlib_uncompress(bytes_of(*compressed));
  ASSERT_TRUE(inflated.is_ok()) << inflated.status().to_string();
  EXPECT_EQ(*inflated, body);
}

// A gzip stream (header 1f 8b), as RocketMQ 5's gRPC clients compress bodies.
std::string gzip_of(const std::string& body) {
  z_stream stream{};
  EXPECT_EQ(deflateInit2(&stream, 5, Z_DEFLATED, MAX_WBITS + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&stream, body.size()) + 32, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
  stream.avail_in = static_cast<uInt>(body.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

TEST(CompressionTest, InflatesGzipStreamsToo) {
  const std::string body = sample_text(20'000);
  const std::string gzipped = gzip_of(body);
  ASSERT_EQ(static_cast<unsigned char>(gzipped[0]), 0x1f);
  auto inflated = zlib_uncompress(bytes_of(gzipped));
  ASSERT_TRUE(inflated.is_ok()) << inflated.status().to_string();
  EXPECT_EQ(*inflated, body);
  EXPECT_EQ(zlib_uncompress(bytes_of(gzipped.substr(0, gzipped.size() - 9))).status().code(), StatusCode::kCorruption);
}

TEST(CompressionTest, RefusesTruncatedAndOversizedStreams) {
  const std::string body = sample_text(50'000);
  auto compressed = zlib_compress(body, 5);
  ASSERT_TRUE(compressed.is_ok());
  const std::string truncated = compressed->substr(0, compressed->size() / 2);
  EXPECT_EQ(zlib_uncompress(bytes_of(truncated)).status().code(), StatusCode::kCorruption);
  EXPECT_EQ(zlib_uncompress(bytes_of(*compressed), 1000).status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(zlib_uncompress(bytes_of("not zlib at all")).status().code(), StatusCode::kCorruption);
  auto exact = zlib_uncompress(bytes_of(*compressed), body.size());
  EXPECT_TRUE(exact.is_ok()) << exact.status().to_string();
}

// A pulled record whose body the producer compressed comes back inflated.
TEST(CompressionTest, DecodedMessagesAreInflated) {
  const std::string body = sample_text(8000);
  auto compressed = zlib_compress(body, 5);
  ASSERT_TRUE(compressed.is_ok());
  const std::string properties = v1::encode_properties({{"UNIQ_KEY", "0A000005123400000000000000000001"}, {"TAGS", "T"}});
  v1::MessageToAppend message;
  message.topic = "TopicA";
  message.queue_id = 2;
  message.sys_flag = v1::sys_flag::kCompressed;
  message.body = bytes_of(*compressed);
  message.properties = properties;
  message.store_host.ip = {10, 0, 0, 1};
  message.store_host.port = 10911;
  std::vector<std::uint8_t> record(static_cast<std::size_t>(v1::record_size(message)));
  ASSERT_TRUE(v1::encode_record(message, {7, 123456, 1700000000000}, record).is_ok());
  std::vector<std::uint8_t> two = record;
  two.insert(two.end(), record.begin(), record.end());

  auto decoded = decode_messages(two);
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().to_string();
  ASSERT_EQ(decoded->size(), 2u);
  const MessageExt& m = decoded->front();
  EXPECT_EQ(m.body(), body);
  EXPECT_EQ(m.sys_flag & v1::sys_flag::kCompressed, 0);
  EXPECT_EQ(m.topic(), "TopicA");
  EXPECT_EQ(m.tags(), "T");
  EXPECT_EQ(m.queue_id, 2);
  EXPECT_EQ(m.queue_offset, 7);
  EXPECT_EQ(m.commit_log_offset, 123456);
  EXPECT_EQ(m.store_host, "10.0.0.1:10911");
  EXPECT_EQ(m.offset_msg_id, "0A00000100002A9F000000000001E240");
  EXPECT_EQ(m.msg_id(), "0A000005123400000000000000000001");

  auto raw = decode_messages(record, /*inflate=*/false);
  ASSERT_TRUE(raw.is_ok());
  EXPECT_EQ(raw->front().body(), *compressed);
  EXPECT_NE(raw->front().sys_flag & v1::sys_flag::kCompressed, 0);

  record.resize(record.size() - 3);
  EXPECT_FALSE(decode_messages(record).is_ok());
}

}  // namespace
}  // namespace mqkit::client
