#include "payload_stamp.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "result_line.hpp"

namespace mqkit::bench {
namespace {

TEST(PayloadStampTest, RoundTripsAtTheRequestedSize) {
  const PayloadStamp stamp{7, 0x0102030405060708ULL, 1'700'000'000'123'456'789ULL};
  std::string body = make_payload(1024, stamp);
  EXPECT_EQ(body.size(), 1024u);
  auto read = read_stamp(body);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->producer, 7u);
  EXPECT_EQ(read->sequence, 0x0102030405060708ULL);
  EXPECT_EQ(read->send_time_ns, 1'700'000'000'123'456'789ULL);
  restamp(body, PayloadStamp{8, 9, 10});
  EXPECT_EQ(read_stamp(body)->sequence, 9u);
  EXPECT_EQ(body.size(), 1024u);
}

TEST(PayloadStampTest, TooSmallBodiesGrowToTheStamp) {
  EXPECT_EQ(make_payload(1, {}).size(), kStampSize);
}

TEST(PayloadStampTest, ForeignBodiesHaveNoStamp) {
  EXPECT_FALSE(read_stamp("hello").has_value());
  EXPECT_FALSE(read_stamp(std::string(64, 'x')).has_value());
  std::string body = make_payload(64, {});
  EXPECT_FALSE(read_stamp(std::string_view(body).substr(0, kStampSize - 1)).has_value());
}

TEST(ResultLineTest, IsOneParsableJsonObject) {
  ResultLine line("mqkit", "async", 1024, 200000);
  line.add("prod_msgs_s", 12345.678);
  line.add("errors", std::uint64_t{0});
  LatencyHistogram empty;
  line.add_latency("e2e", empty);  // nothing for an empty histogram
  LatencyHistogram h;
  h.record(250);
  line.add_latency("pub", h);
  const std::string text = line.to_string();
  ASSERT_EQ(text.rfind("RESULT {", 0), 0u) << text;
  rapidjson::Document doc;
  doc.Parse(text.c_str() + 7);
  ASSERT_FALSE(doc.HasParseError()) << text;
  EXPECT_STREQ(doc["system"].GetString(), "mqkit");
  EXPECT_STREQ(doc["variant"].GetString(), "async");
  EXPECT_EQ(doc["size"].GetUint64(), 1024u);
  EXPECT_EQ(doc["n"].GetUint64(), 200000u);
  EXPECT_DOUBLE_EQ(doc["prod_msgs_s"].GetDouble(), 12345.68);
  EXPECT_FALSE(doc.HasMember("e2e_p50_us"));
  EXPECT_EQ(doc["pub_p99_us"].GetUint64(), 250u);
  EXPECT_EQ(doc["errors"].GetUint64(), 0u);
}

}  // namespace
}  // namespace mqkit::bench
