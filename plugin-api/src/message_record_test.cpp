#include "mqkit/plugin/v1/message_record.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>
#include <random>
#include <vector>

namespace mqkit::plugin::v1 {
namespace {

std::span<const std::uint8_t> bytes_of(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

HostAddress v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d, int port) {
  HostAddress h;
  h.ip[0] = a, h.ip[1] = b, h.ip[2] = c, h.ip[3] = d;
  h.port = port;
  return h;
}

std::uint64_t read_be(const std::vector<std::uint8_t>& b, std::size_t at, int n) {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | b[at + i];
  return v;
}

struct Sample {
  std::string properties = encode_properties({{"KEYS", "k1"}, {"TAGS", "TagA"}});
  MessageToAppend message;
  Sample() {
    message.topic = "T";
    message.queue_id = 1;
    message.flag = 9;
    message.born_timestamp = 1700000000000;
    message.born_host = v4(10, 0, 0, 5, 51000);
    message.store_host = v4(10, 0, 0, 1, 10911);
    message.reconsume_times = 2;
    message.body = bytes_of("hello");
    message.properties = properties;
  }
};

TEST(MessageRecordTest, GoldenLayoutOfAnIpv4Record) {
  Sample s;
  const std::int32_t size = record_size(s.message);
  EXPECT_EQ(size, 91 + 5 + 1 + static_cast<std::int32_t>(s.properties.size()));
  std::vector<std::uint8_t> out(static_cast<std::size_t>(size));
  ASSERT_TRUE(encode_record(s.message, {7, 123456, 1700000000100}, out).is_ok());
  // Positions from the RocketMQ layout (rocketmq-facts §3.2).
  EXPECT_EQ(read_be(out, 0, 4), static_cast<std::uint64_t>(size));
  EXPECT_EQ(read_be(out, 4, 4), 0xDAA320A7u);
  EXPECT_EQ(read_be(out, 8, 4), 0x3610A686u);  // crc32("hello") & 0x7FFFFFFF
  EXPECT_EQ(read_be(out, 12, 4), 1u);          // queue id
  EXPECT_EQ(read_be(out, 16, 4), 9u);          // flag
  EXPECT_EQ(read_be(out, 20, 8), 7u);          // queue offset
  EXPECT_EQ(read_be(out, 28, 8), 123456u);     // physical offset
  EXPECT_EQ(read_be(out, 36, 4), 0u);          // sys flag
  EXPECT_EQ(read_be(out, 40, 8), 1700000000000u);
  EXPECT_EQ(read_be(out, 48, 4), 0x0A000005u);  // born host ip
  EXPECT_EQ(read_be(out, 52, 4), 51000u);
  EXPECT_EQ(read_be(out, 56, 8), 1700000000100u);  // store timestamp
  EXPECT_EQ(read_be(out, 64, 4), 0x0A000001u);
  EXPECT_EQ(read_be(out, 68, 4), 10911u);
  EXPECT_EQ(read_be(out, 72, 4), 2u);   // reconsume times
  EXPECT_EQ(read_be(out, 76, 8), 0u);   // prepared transaction offset
  EXPECT_EQ(read_be(out, 84, 4), 5u);   // body length
  EXPECT_EQ(std::memcmp(out.data() + 88, "hello", 5), 0);
  EXPECT_EQ(out[93], 1);                // topic length
  EXPECT_EQ(out[94], 'T');
  EXPECT_EQ(read_be(out, 95, 2), s.properties.size());
}

TEST(MessageRecordTest, DecodeRoundTripAndCrc) {
  Sample s;
  std::vector<std::uint8_t> out(static_cast<std::size_t>(record_size(s.message)));
  ASSERT_TRUE(encode_record(s.message, {7, 123456, 1700000000100}, out).is_ok());
  auto v = decode_record(out, CrcCheck::kVerify);
  ASSERT_TRUE(v.is_ok()) << v.status().to_string();
  EXPECT_EQ(v->topic, "T");
  EXPECT_EQ(v->queue_offset, 7);
  EXPECT_EQ(v->commit_offset, 123456);
  EXPECT_EQ(to_string(v->born_host), "10.0.0.5:51000");
  EXPECT_EQ(std::string_view(reinterpret_cast<const char*>(v->body.data()), v->body.size()), "hello");
  EXPECT_EQ(find_property(v->properties, "TAGS"), "TagA");
  out[90] ^= 0x01;  // flip a body bit
  EXPECT_EQ(decode_record(out, CrcCheck::kVerify).status().message().rfind(
                "record at commit offset 123456: body CRC mismatch", 0),
            0u);
  EXPECT_TRUE(decode_record(out, CrcCheck::kSkip).is_ok());
}

TEST(MessageRecordTest, Ipv6HostsSetFlagsAndGrowTheRecord) {
  Sample s;
  auto host = parse_host_address("[::1]:10911");
  ASSERT_TRUE(host.is_ok());
  s.message.store_host = *host;
  const std::int32_t size = record_size(s.message);
  EXPECT_EQ(size, 91 + 12 + 5 + 1 + static_cast<std::int32_t>(s.properties.size()));
  std::vector<std::uint8_t> out(static_cast<std::size_t>(size));
  ASSERT_TRUE(encode_record(s.message, {}, out).is_ok());
  auto v = decode_record(out);
  ASSERT_TRUE(v.is_ok()) << v.status().to_string();
  EXPECT_EQ(v->sys_flag & sys_flag::kStoreHostV6, sys_flag::kStoreHostV6);
  EXPECT_EQ(to_string(v->store_host), "[::1]:10911");
}

// A redelivered popped message carries one more reconsume time; everything else stays.
TEST(MessageRecordTest, ReconsumeTimesAreRewrittenInACopyForBothHostLayouts) {
  for (const bool v6 : {false, true}) {
    Sample s;
    if (v6) s.message.born_host = *parse_host_address("[::1]:51000");
    std::vector<std::uint8_t> out(static_cast<std::size_t>(record_size(s.message)));
    ASSERT_TRUE(encode_record(s.message, {}, out).is_ok());
    auto copy = with_reconsume_times(out, 7);
    ASSERT_TRUE(copy.is_ok()) << copy.status().to_string();
    auto before = decode_record(out, CrcCheck::kVerify);
    auto after = decode_record(*copy, CrcCheck::kVerify);
    ASSERT_TRUE(after.is_ok()) << after.status().to_string();
    EXPECT_EQ(after->reconsume_times, 7);
    EXPECT_EQ(before->reconsume_times, 2);  // the original is untouched
    EXPECT_EQ(after->prepared_transaction_offset, before->prepared_transaction_offset);
    EXPECT_EQ(after->store_timestamp, before->store_timestamp);
    EXPECT_EQ(after->properties, before->properties);
  }
  EXPECT_FALSE(with_reconsume_times(bytes_of("short"), 1).is_ok());
}

TEST(MessageRecordTest, CorruptInputIsRejectedWithAReason) {
  Sample s;
  std::vector<std::uint8_t> out(static_cast<std::size_t>(record_size(s.message)));
  ASSERT_TRUE(encode_record(s.message, {0, 64, 0}, out).is_ok());
  EXPECT_EQ(decode_record(std::span(out).first(6)).status().message(), "record header truncated: 6 bytes");
  EXPECT_EQ(decode_record(std::span(out).first(50)).status().message(),
            "record size " + std::to_string(out.size()) + " does not fit the 50 bytes available");
  auto bad_magic = out;
  bad_magic[4] = 0;
  EXPECT_EQ(decode_record(bad_magic).status().message(), "bad record magic 0x00A320A7");
  auto bad_body = out;
  bad_body[86] = 0x7F;  // body length far beyond the record
  EXPECT_EQ(decode_record(bad_body).status().message(),
            "record at commit offset 64: body runs past the record size " + std::to_string(out.size()));
  const std::uint8_t blank[] = {0, 0, 0, 100, 0xCB, 0xD4, 0x31, 0x94};
  EXPECT_EQ(decode_record(blank).status().code(), StatusCode::kNotFound);
  // Every truncation of a valid record fails cleanly.
  for (std::size_t n = 0; n < out.size(); ++n) EXPECT_FALSE(decode_record(std::span(out).first(n)).is_ok());
}

TEST(MessageRecordTest, LimitsAreEnforced) {
  Sample s;
  const std::string long_topic(128, 't');
  s.message.topic = long_topic;
  std::vector<std::uint8_t> out(static_cast<std::size_t>(record_size(s.message)));
  EXPECT_EQ(encode_record(s.message, {}, out).message(), "topic is 128 bytes, the limit is 127");
}

TEST(MessageRecordTest, Properties) {
  const Properties props{{"KEYS", "a b"}, {"UNIQ_KEY", "ABC"}, {"EMPTY", ""}};
  const std::string encoded = encode_properties(props);
  EXPECT_EQ(encoded, "KEYS\x01" "a b\x02UNIQ_KEY\x01" "ABC\x02" "EMPTY\x01\x02");
  EXPECT_EQ(decode_properties(encoded), props);
  EXPECT_EQ(find_property(encoded, "UNIQ_KEY"), "ABC");
  EXPECT_EQ(find_property(encoded, "NOPE"), std::nullopt);
  // Segments without a separator are skipped, like RocketMQ's parser.
  EXPECT_EQ(decode_properties("junk\x02K\x01V"), (Properties{{"K", "V"}}));
  std::string_view rest = "\x02junk\x02K\x01V\x01W\x02\x02" "E\x01";
  EXPECT_EQ(next_property(rest), std::pair(std::string_view("K"), std::string_view("V\x01W")));
  EXPECT_EQ(rest, "\x02" "E\x01");
  EXPECT_EQ(next_property(rest), std::pair(std::string_view("E"), std::string_view()));
  EXPECT_EQ(rest, "");
  EXPECT_EQ(next_property(rest), std::nullopt);
  EXPECT_EQ(tags_code_of("TagA"), 2598919);
  EXPECT_EQ(tags_code_of(""), 0);
}

TEST(MessageRecordTest, OffsetMessageIdMatchesRocketMq) {
  const auto id = make_offset_message_id(v4(10, 0, 0, 1, 10911), 123456);
  EXPECT_EQ(id, "0A00000100002A9F000000000001E240");
  auto parsed = parse_offset_message_id(id);
  ASSERT_TRUE(parsed.is_ok());
  EXPECT_EQ(parsed->commit_offset, 123456);
  EXPECT_EQ(to_string(parsed->store_host), "10.0.0.1:10911");
  HostAddress v6;
  v6.is_v6 = true;
  v6.ip = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0x01};
  v6.port = 10911;
  const auto id6 = make_offset_message_id(v6, -1);
  EXPECT_EQ(id6, "20010DB8" "00000000000000000000" "FF01" "00002A9F" "FFFFFFFFFFFFFFFF");
  auto parsed6 = parse_offset_message_id(id6);
  ASSERT_TRUE(parsed6.is_ok());
  EXPECT_EQ(to_string(parsed6->store_host), "[2001:db8::ff01]:10911");
  EXPECT_EQ(parsed6->commit_offset, -1);
  EXPECT_FALSE(parse_offset_message_id("XYZ").is_ok());
  EXPECT_FALSE(parse_offset_message_id("0A00000100002A9F000000000001E24G").is_ok());
}

TEST(MessageRecordTest, BatchBodyRoundTrip) {
  std::vector<std::uint8_t> body;
  append_batch_item(body, 1, bytes_of("one"), "K\x01V\x02");
  append_batch_item(body, 2, bytes_of("three"), "");
  auto items = decode_batch(body);
  ASSERT_TRUE(items.is_ok()) << items.status().to_string();
  ASSERT_EQ(items->size(), 2u);
  EXPECT_EQ((*items)[0].flag, 1);
  EXPECT_EQ((*items)[0].properties, "K\x01V\x02");
  EXPECT_EQ((*items)[1].body.size(), 5u);
  body.pop_back();
  EXPECT_FALSE(decode_batch(body).is_ok());
}

TEST(MessageRecordTest, BatchItemsIntoAStringAreTheSameBytes) {
  std::vector<std::uint8_t> in_vector;
  std::string in_string = "x";  // appended after what is there
  append_batch_item(in_vector, 7, bytes_of("body"), "K\x01V\x02");
  append_batch_item(in_string, 7, bytes_of("body"), "K\x01V\x02");
  EXPECT_EQ(in_string.size(), 1 + batch_item_size(4, 4));
  EXPECT_EQ(in_string.substr(1), std::string(in_vector.begin(), in_vector.end()));
}

TEST(MessageRecordTest, AppendPropertyEncodesLikeTheList) {
  std::string encoded;
  append_property(encoded, "KEYS", "a b");
  append_property(encoded, "EMPTY", "");
  EXPECT_EQ(encoded, encode_properties({{"KEYS", "a b"}, {"EMPTY", ""}}));
  EXPECT_EQ(encoded.size(), encoded_property_size("KEYS", "a b") + encoded_property_size("EMPTY", ""));
}

TEST(MessageRecordTest, HostAddressFormatting) {
  EXPECT_EQ(to_string(v4(0, 0, 0, 0, 0)), "0.0.0.0:0");
  EXPECT_EQ(to_string(v4(255, 255, 255, 255, 65535)), "255.255.255.255:65535");
  EXPECT_EQ(to_string(v4(10, 1, 20, 199, 10911)), "10.1.20.199:10911");
  HostAddress v6;
  v6.is_v6 = true;
  v6.ip = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0x01};
  v6.port = 8080;
  EXPECT_EQ(to_string(v6), "[2001:db8::ff01]:8080");
  EXPECT_EQ(to_string(HostAddress{.ip = {}, .is_v6 = true, .port = 1}), "[::]:1");
}

TEST(MessageRecordTest, HostAddressParsing) {
  EXPECT_EQ(to_string(*parse_host_address("127.0.0.1:9876")), "127.0.0.1:9876");
  EXPECT_EQ(parse_host_address("localhost:9876").status().message(),
            "address 'localhost:9876' is not a numeric IP address");
  EXPECT_FALSE(parse_host_address("1.2.3.4").is_ok());
  EXPECT_FALSE(parse_host_address("1.2.3.4:99999").is_ok());
}

TEST(MessageRecordTest, BodyCrcIsZlibsCrc32MaskedForEveryLengthAndAlignment) {
  std::mt19937 random(7);
  std::vector<std::uint8_t> bytes(1400);
  for (auto& b : bytes) b = static_cast<std::uint8_t>(random());
  int mismatches = 0;
  for (std::size_t offset = 0; offset < 16; ++offset) {
    for (std::size_t size = 0; size + offset <= bytes.size(); size += (size < 300 ? 1 : 37)) {
      const auto expected = static_cast<std::int32_t>(crc32_z(0, bytes.data() + offset, size) & 0x7FFFFFFF);
      const std::int32_t actual = body_crc({bytes.data() + offset, size});
      if (actual != expected && ++mismatches <= 5) {
        ADD_FAILURE() << "offset " << offset << " size " << size << ": " << actual << " != " << expected;
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

}  // namespace
}  // namespace mqkit::plugin::v1
