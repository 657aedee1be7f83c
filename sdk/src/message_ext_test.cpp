#include "mqkit/client/message_ext.hpp"

#include <gtest/gtest.h>

#include "mqkit/plugin/v1/message_record.hpp"

namespace mqkit::client {
namespace {

namespace v1 = plugin::v1;

std::span<const std::uint8_t> bytes_of(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

void append_record(std::vector<std::uint8_t>& out, std::string_view properties, const v1::HostAddress& store_host,
                   std::int64_t commit_offset) {
  v1::MessageToAppend m;
  m.topic = "TopicA";
  m.queue_id = 1;
  m.flag = 5;
  m.born_timestamp = 1700000000000;
  m.born_host.ip = {192, 168, 0, 10};
  m.born_host.port = 50000;
  m.store_host = store_host;
  m.reconsume_times = 2;
  m.body = bytes_of("payload");
  m.properties = properties;
  const std::size_t start = out.size();
  out.resize(start + static_cast<std::size_t>(v1::record_size(m)));
  ASSERT_TRUE(v1::encode_record(m, {9, commit_offset, 1700000000007}, std::span(out).subspan(start)).is_ok());
}

v1::HostAddress v4_store() {
  v1::HostAddress h;
  h.ip = {10, 0, 0, 1};
  h.port = 10911;
  return h;
}

// The properties of a decoded message are the map set_property builds from the stored pairs in
// order, whatever their order and even with repeated names (the last one wins) or junk segments.
TEST(MessageExtTest, PropertiesAreThoseSetPropertyBuildsInStoredOrder) {
  const std::string properties[] = {
      v1::encode_properties({{"KEYS", "k"}, {"TAGS", "T"}, {"UNIQ_KEY", "ABC"}, {"WAIT", "true"}}),
      v1::encode_properties({{"UNIQ_KEY", "ABC"}, {"b", "1"}, {"KEYS", "k"}, {"a", ""}, {"b", "2"}, {"TAGS", "T"}}),
      std::string("junk\x02z\x01last\x02") + "a\x01" "1\x02z\x01" "again\x02",
      "",
  };
  std::vector<std::uint8_t> body;
  for (std::size_t i = 0; i < std::size(properties); ++i) append_record(body, properties[i], v4_store(), 100 * i);
  auto decoded = decode_messages(body);
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().to_string();
  ASSERT_EQ(decoded->size(), std::size(properties));
  for (std::size_t i = 0; i < std::size(properties); ++i) {
    Message expected;
    for (const auto& [name, value] : v1::decode_properties(properties[i])) expected.set_property(name, value);
    EXPECT_EQ((*decoded)[i].properties(), expected.properties()) << "record " << i;
  }
  EXPECT_EQ((*decoded)[1].property("b"), "2");
  EXPECT_EQ((*decoded)[2].property("z"), "again");
  EXPECT_TRUE((*decoded)[3].properties().empty());
}

TEST(MessageExtTest, FieldsComeFromTheRecord) {
  v1::HostAddress v6;
  v6.is_v6 = true;
  v6.ip = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01};
  v6.port = 10911;
  std::vector<std::uint8_t> body;
  append_record(body, v1::encode_properties({{"UNIQ_KEY", "0A000005123400000000000000000001"}}), v4_store(), 4096);
  append_record(body, "", v6, 8192);
  auto decoded = decode_messages(body);
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().to_string();
  ASSERT_EQ(decoded->size(), 2u);
  const MessageExt& m = decoded->front();
  EXPECT_EQ(m.topic(), "TopicA");
  EXPECT_EQ(m.body(), "payload");
  EXPECT_EQ(m.flag(), 5);
  EXPECT_EQ(m.queue_id, 1);
  EXPECT_EQ(m.queue_offset, 9);
  EXPECT_EQ(m.commit_log_offset, 4096);
  EXPECT_EQ(m.born_timestamp, 1700000000000);
  EXPECT_EQ(m.store_timestamp, 1700000000007);
  EXPECT_EQ(m.reconsume_times, 2);
  EXPECT_EQ(m.born_host, "192.168.0.10:50000");
  EXPECT_EQ(m.store_host, "10.0.0.1:10911");
  EXPECT_EQ(m.offset_msg_id, "0A00000100002A9F0000000000001000");
  EXPECT_EQ(m.msg_id(), "0A000005123400000000000000000001");
  const MessageExt& n = decoded->back();
  EXPECT_EQ(n.store_host, "[2001:db8::1]:10911");
  EXPECT_EQ(n.offset_msg_id, v1::make_offset_message_id(v6, 8192));
  EXPECT_EQ(n.msg_id(), n.offset_msg_id);
  EXPECT_EQ(n.store_size, static_cast<std::int32_t>(body.size()) - m.store_size);
}

// Bad bodies fail cleanly: size fields that promise many tiny records, a truncated record, and
// trailing bytes after good records.
TEST(MessageExtTest, BadBodiesAreCorruption) {
  std::vector<std::uint8_t> tiny;
  for (int i = 0; i < 1000; ++i) tiny.insert(tiny.end(), {0, 0, 0, 4});
  EXPECT_EQ(decode_messages(tiny).status().code(), StatusCode::kCorruption);
  std::vector<std::uint8_t> body;
  append_record(body, "", v4_store(), 0);
  append_record(body, "", v4_store(), 100);
  auto truncated = body;
  truncated.pop_back();
  EXPECT_EQ(decode_messages(truncated).status().code(), StatusCode::kCorruption);
  body.insert(body.end(), {0, 0, 0});
  EXPECT_EQ(decode_messages(body).status().code(), StatusCode::kCorruption);
  EXPECT_TRUE(decode_messages({}).is_ok());
}

}  // namespace
}  // namespace mqkit::client
