// Robustness of the SDK's decoding of broker answers against corrupt bodies: the stored records
// of pull, query and transaction-check bodies (plain, zlib-compressed, several back to back) and
// zlib inflation itself. Seeds, every truncation and deterministic mutations
// (tests/support/mutation_testing.hpp); valid input decodes to the messages that were encoded.
#include <gtest/gtest.h>

#include "mqkit/client/compression.hpp"
#include "mqkit/client/message_ext.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mutation_testing.hpp"

namespace mqkit::client {
namespace {

namespace v1 = plugin::v1;
using mqkit::testing::Bytes;
using mqkit::testing::check_seeds_truncations_and_mutations;
using mqkit::testing::value_or_explained_error;

std::span<const std::uint8_t> span_of(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

std::string repetitive_text(std::size_t size) {
  std::string text;
  while (text.size() < size) text += "order " + std::to_string(text.size() % 97) + " shipped; ";
  text.resize(size);
  return text;
}

Bytes record(std::string_view topic, std::string_view body, std::int32_t sys_flag, std::int64_t commit_offset,
             const v1::Properties& properties) {
  const std::string encoded = v1::encode_properties(properties);
  v1::MessageToAppend m;
  m.topic = topic;
  m.queue_id = 1;
  m.sys_flag = sys_flag;
  m.body = span_of(body);
  m.properties = encoded;
  m.born_host.ip = {10, 0, 0, 5};
  m.born_host.port = 51000;
  m.store_host.ip = {10, 0, 0, 1};
  m.store_host.port = 10911;
  Bytes out(static_cast<std::size_t>(v1::record_size(m)));
  EXPECT_TRUE(v1::encode_record(m, {3, commit_offset, 1700000000000}, out).is_ok());
  return out;
}

std::string compressed(std::string_view body) {
  auto out = zlib_compress(body, 5);
  EXPECT_TRUE(out.is_ok());
  return out.value_or("");
}

constexpr std::int32_t kZlibType = 0x300;  // 5.x compression type bits for zlib

// Each seed's expected bodies, in order.
struct Seed {
  Bytes bytes;
  std::vector<std::string> bodies;
};

std::vector<Seed> seeds() {
  std::vector<Seed> out;
  const std::string text = repetitive_text(600);
  out.push_back({record("TopicA", "plain body", 0, 0, {{"TAGS", "a"}, {"UNIQ_KEY", "0A0000051234"}}), {"plain body"}});
  out.push_back({record("TopicA", compressed(text), v1::sys_flag::kCompressed, 100, {{"KEYS", "k"}}), {text}});
  out.push_back({record("TopicB", compressed("typed"), v1::sys_flag::kCompressed | kZlibType, 200, {}), {"typed"}});
  // A pull body: several records back to back, compressed and plain, with a repeated property.
  Seed pulled;
  for (int i = 0; i < 3; ++i) {
    const std::string body = "message " + std::to_string(i);
    const bool zip = i == 1;
    const Bytes r = record("TopicC", zip ? compressed(body) : body, zip ? v1::sys_flag::kCompressed : 0, 300 + i,
                           {{"TAGS", "t"}, {"TAGS", "u"}, {"DELAY", "3"}});
    pulled.bytes.insert(pulled.bytes.end(), r.begin(), r.end());
    pulled.bodies.push_back(body);
  }
  out.push_back(std::move(pulled));
  return out;
}

std::vector<Bytes> seed_bytes() {
  std::vector<Bytes> out;
  for (const Seed& s : seeds()) out.push_back(s.bytes);
  return out;
}

std::optional<std::string> check_messages(std::span<const std::uint8_t> input) {
  for (const bool inflate : {true, false}) {
    const auto messages = decode_messages(input, inflate);
    if (!messages.is_ok()) {
      if (auto broken = value_or_explained_error(messages, "decode_messages")) return broken;
      continue;
    }
    std::size_t total = 0;
    for (const MessageExt& m : *messages) {
      if (m.store_size < v1::kMinRecordSize) return "a decoded message has store size " + std::to_string(m.store_size);
      total += static_cast<std::size_t>(m.store_size);
      if (inflate && (m.sys_flag & v1::sys_flag::kCompressed) != 0 && (m.sys_flag & 0x700) == 0) {
        return "a zlib body was left compressed";
      }
    }
    if (total != input.size()) return "decoded messages cover " + std::to_string(total) + " of " + std::to_string(input.size()) + " bytes";
  }
  return std::nullopt;
}

TEST(MessageDecodeFuzzTest, SeedsDecodeToTheMessagesEncoded) {
  for (const Seed& seed : seeds()) {
    const auto messages = decode_messages(seed.bytes);
    ASSERT_TRUE(messages.is_ok()) << messages.status().to_string();
    ASSERT_EQ(messages->size(), seed.bodies.size());
    for (std::size_t i = 0; i < seed.bodies.size(); ++i) EXPECT_EQ((*messages)[i].body(), seed.bodies[i]);
  }
}

TEST(MessageDecodeFuzzTest, PulledBodiesSurviveCorruption) {
  EXPECT_EQ(check_seeds_truncations_and_mutations(seed_bytes(), check_messages, {.iterations = 5000}), std::nullopt);
}

// Inflation alone, with a small limit so that the limit is reached too; what inflates
// compresses and inflates back to the same bytes.
std::optional<std::string> check_inflate(std::span<const std::uint8_t> input) {
  for (const std::size_t limit : {std::size_t{700}, kMaxInflatedBodySize}) {
    const auto inflated = zlib_uncompress(input, limit);
    if (!inflated.is_ok()) {
      if (auto broken = value_or_explained_error(inflated, "zlib_uncompress")) return broken;
      continue;
    }
    if (inflated->size() > limit) return "inflated past the limit";
    const auto again = zlib_compress(*inflated, 5);
    if (!again.is_ok()) return "inflated bytes do not compress: " + again.status().to_string();
    const auto round = zlib_uncompress(span_of(*again), limit);
    if (!round.is_ok() || *round != *inflated) return "inflated bytes do not round-trip";
  }
  return std::nullopt;
}

TEST(MessageDecodeFuzzTest, ZlibInflationSurvivesCorruption) {
  const std::vector<Bytes> zlib_seeds = {mqkit::testing::bytes_of(compressed(repetitive_text(650))),
                                         mqkit::testing::bytes_of(compressed("x")),
                                         mqkit::testing::bytes_of(compressed(""))};
  EXPECT_EQ(check_seeds_truncations_and_mutations(zlib_seeds, check_inflate, {.iterations = 3000}), std::nullopt);
}

}  // namespace
}  // namespace mqkit::client
