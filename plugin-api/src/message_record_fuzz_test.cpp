// Robustness of the record, property, batch, message id and address decoders against corrupt
// input (commit log files, pull responses, SEND_BATCH_MESSAGE bodies): seeds, every truncation
// and deterministic mutations (tests/support/mutation_testing.hpp). Valid input round-trips.
#include <gtest/gtest.h>

#include <cctype>
#include <cstring>

#include "mqkit/plugin/v1/message_record.hpp"
#include "mutation_testing.hpp"

namespace mqkit::plugin::v1 {
namespace {

using mqkit::testing::Bytes;
using mqkit::testing::check_seeds_truncations_and_mutations;
using mqkit::testing::text_of;
using mqkit::testing::value_or_explained_error;

bool inside(std::span<const std::uint8_t> outer, const void* data, std::size_t size) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  return size == 0 || (p >= outer.data() && p + size <= outer.data() + outer.size());
}

HostAddress host(bool v6, std::uint8_t last, std::int32_t port) {
  HostAddress h;
  h.is_v6 = v6;
  h.ip[0] = 10;
  h.ip[v6 ? 15 : 3] = last;
  h.port = port;
  return h;
}

Bytes record_bytes(std::string_view topic, std::string_view body, const Properties& properties, bool born_v6,
                   bool store_v6, std::int32_t sys_flag = 0) {
  const std::string encoded = encode_properties(properties);
  MessageToAppend m;
  m.topic = topic;
  m.queue_id = 3;
  m.flag = 7;
  m.sys_flag = sys_flag;
  m.born_timestamp = 1700000000000;
  m.born_host = host(born_v6, 5, 51000);
  m.store_host = host(store_v6, 1, 10911);
  m.reconsume_times = 1;
  m.prepared_transaction_offset = 42;
  m.body = {reinterpret_cast<const std::uint8_t*>(body.data()), body.size()};
  m.properties = encoded;
  Bytes out(static_cast<std::size_t>(record_size(m)));
  EXPECT_TRUE(encode_record(m, {11, 4096, 1700000000100}, out).is_ok());
  return out;
}

std::vector<Bytes> record_seeds() {
  std::vector<Bytes> seeds;
  seeds.push_back(record_bytes("TopicA", "hello", {{"KEYS", "k1"}, {"TAGS", "TagA"}, {"UNIQ_KEY", "AC11"}}, false, false));
  seeds.push_back(record_bytes("T", "", {}, false, false));
  seeds.push_back(record_bytes("TopicV6", "body", {{"TAGS", "x"}}, true, true, sys_flag::kMultiTags));
  seeds.push_back(record_bytes("TopicMixed", std::string(40, 'b'), {{"a", ""}, {"", "b"}}, true, false,
                               sys_flag::kCompressed | sys_flag::kTransactionPrepared));
  // Two records back to back, as a pull response or a commit log file holds them.
  Bytes two = seeds[0];
  two.insert(two.end(), seeds[2].begin(), seeds[2].end());
  seeds.push_back(std::move(two));
  // An end-of-file blank.
  seeds.push_back({0, 0, 0, 16, 0xCB, 0xD4, 0x31, 0x94, 0, 0, 0, 0, 0, 0, 0, 0});
  return seeds;
}

// A decoded record lies inside its input, re-encodes to the same bytes (the CRC field aside
// unless verified), and its properties decode the same after re-encoding.
std::optional<std::string> check_decoded_record(std::span<const std::uint8_t> input, const RecordView& v, CrcCheck crc) {
  if (v.total_size < kMinRecordSize || static_cast<std::size_t>(v.total_size) > input.size()) {
    return "decoded total size " + std::to_string(v.total_size) + " outside the input";
  }
  const auto record = input.first(static_cast<std::size_t>(v.total_size));
  if (!inside(record, v.body.data(), v.body.size()) || !inside(record, v.topic.data(), v.topic.size()) ||
      !inside(record, v.properties.data(), v.properties.size())) {
    return "a decoded view points outside the record";
  }
  if (crc == CrcCheck::kVerify && body_crc(v.body) != v.body_crc) return "CRC verified but wrong";
  const Properties properties = decode_properties(v.properties);
  if (decode_properties(encode_properties(properties)) != properties) return "properties do not round-trip";
  for (const auto& [name, value] : properties) {
    const auto found = find_property(v.properties, name);
    if (!found) return "find_property misses a decoded property";
  }
  MessageToAppend m;
  m.topic = v.topic;
  m.queue_id = v.queue_id;
  m.flag = v.flag;
  m.sys_flag = v.sys_flag;
  m.born_timestamp = v.born_timestamp;
  m.born_host = v.born_host;
  m.store_host = v.store_host;
  m.reconsume_times = v.reconsume_times;
  m.prepared_transaction_offset = v.prepared_transaction_offset;
  m.body = v.body;
  m.properties = v.properties;
  if (record_size(m) != v.total_size) return "record_size of the decoded record differs from its total size";
  Bytes again(static_cast<std::size_t>(v.total_size));
  // Topics over 127 and properties over 32767 bytes decode (the fields allow them) but are
  // refused by the encoder, as RocketMQ's broker refuses them.
  if (!encode_record(m, {v.queue_offset, v.commit_offset, v.store_timestamp}, again).is_ok()) return std::nullopt;
  std::memcpy(again.data() + 8, record.data() + 8, 4);  // the stored CRC, which kSkip does not check
  if (!std::equal(again.begin(), again.end(), record.begin())) return "re-encoded record differs";
  return std::nullopt;
}

std::optional<std::string> check_record(std::span<const std::uint8_t> input) {
  for (const CrcCheck crc : {CrcCheck::kSkip, CrcCheck::kVerify}) {
    const auto decoded = decode_record(input, crc);
    if (!decoded.is_ok()) {
      if (auto broken = value_or_explained_error(decoded, "decode_record")) return broken;
      continue;
    }
    if (auto broken = check_decoded_record(input, *decoded, crc)) return broken;
  }
  return std::nullopt;
}

TEST(MessageRecordFuzzTest, RecordDecoderSurvivesCorruption) {
  EXPECT_EQ(check_seeds_truncations_and_mutations(record_seeds(), check_record, {.iterations = 6000}), std::nullopt);
}

std::vector<Bytes> batch_seeds() {
  std::vector<Bytes> seeds;
  const auto bytes = [](std::string_view s) { return std::span(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()); };
  Bytes one;
  append_batch_item(one, 0, bytes("hello"), encode_properties({{"KEYS", "k"}, {"TAGS", "t"}}));
  seeds.push_back(one);
  Bytes three;
  append_batch_item(three, 1, bytes(""), "");
  append_batch_item(three, 2, bytes("second body"), encode_properties({{"UNIQ_KEY", "ABC"}}));
  append_batch_item(three, 3, bytes(std::string(70, 'x')), encode_properties({{"a", "b"}}));
  seeds.push_back(three);
  return seeds;
}

std::optional<std::string> check_batch(std::span<const std::uint8_t> input) {
  const auto items = decode_batch(input);
  if (!items.is_ok()) return value_or_explained_error(items, "decode_batch");
  Bytes again;
  for (const BatchItem& item : *items) {
    if (!inside(input, item.body.data(), item.body.size()) ||
        !inside(input, item.properties.data(), item.properties.size())) {
      return "a batch item points outside the body";
    }
    append_batch_item(again, item.flag, item.body, item.properties);
  }
  const auto decoded_again = decode_batch(again);
  if (!decoded_again.is_ok()) return "re-encoded batch does not decode: " + decoded_again.status().to_string();
  if (decoded_again->size() != items->size()) return "re-encoded batch has another item count";
  for (std::size_t i = 0; i < items->size(); ++i) {
    const BatchItem& a = (*items)[i];
    const BatchItem& b = (*decoded_again)[i];
    if (a.flag != b.flag || !std::ranges::equal(a.body, b.body) || a.properties != b.properties) {
      return "batch item " + std::to_string(i) + " changed in the round trip";
    }
  }
  return std::nullopt;
}

TEST(MessageRecordFuzzTest, BatchDecoderSurvivesCorruption) {
  EXPECT_EQ(check_seeds_truncations_and_mutations(batch_seeds(), check_batch, {.iterations = 5000}), std::nullopt);
}

std::optional<std::string> check_message_id(std::span<const std::uint8_t> input) {
  const auto id = parse_offset_message_id(text_of(input));
  if (!id.is_ok()) return value_or_explained_error(id, "parse_offset_message_id");
  std::string upper(text_of(input));
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (make_offset_message_id(id->store_host, id->commit_offset) != upper) return "message id does not round-trip";
  return std::nullopt;
}

TEST(MessageRecordFuzzTest, OffsetMessageIdParserSurvivesCorruption) {
  const std::vector<Bytes> seeds = {
      mqkit::testing::bytes_of(make_offset_message_id(host(false, 1, 10911), 4096)),
      mqkit::testing::bytes_of(make_offset_message_id(host(true, 1, 10911), 1LL << 40)),
  };
  EXPECT_EQ(check_seeds_truncations_and_mutations(seeds, check_message_id, {.iterations = 3000}), std::nullopt);
}

std::optional<std::string> check_address(std::span<const std::uint8_t> input) {
  const auto address = parse_host_address(text_of(input));
  if (!address.is_ok()) return value_or_explained_error(address, "parse_host_address");
  const auto again = parse_host_address(to_string(*address));
  if (!again.is_ok() || again->ip != address->ip || again->is_v6 != address->is_v6 || again->port != address->port) {
    return "address does not round-trip through to_string";
  }
  return std::nullopt;
}

TEST(MessageRecordFuzzTest, HostAddressParserSurvivesCorruption) {
  const std::vector<Bytes> seeds = {mqkit::testing::bytes_of("127.0.0.1:10911"),
                                    mqkit::testing::bytes_of("[fe80::1:2]:9876"),
                                    mqkit::testing::bytes_of("10.0.0.255:0")};
  EXPECT_EQ(check_seeds_truncations_and_mutations(seeds, check_address, {.iterations = 3000}), std::nullopt);
}

}  // namespace
}  // namespace mqkit::plugin::v1
