// Robustness of the recovery scan against corrupt commit log files: a file image (records, then
// an end-of-file blank or unwritten zeros) is truncated and mutated (tests/support/
// mutation_testing.hpp) and walked with inspect_scan_position as Recovery::scan walks it. Every
// step stays inside the file and moves forward, every refusal says why, and the intact image
// yields exactly the records written into it.
#include <gtest/gtest.h>

#include "big_endian.hpp"
#include "mutation_testing.hpp"
#include "recovery.hpp"

namespace mqkit::plugins::stores::commitlog {
namespace {

namespace v1 = plugin::v1;
using mqkit::testing::Bytes;

// Where the image sits in the log: not at 0, so commit offsets are checked for real.
constexpr std::int64_t kFileStart = 1 << 20;

struct Image {
  Bytes bytes;
  std::int64_t records = 0;
};

// Records with consecutive commit offsets, then `tail`: a blank that fills the file, or zeros.
Image image(int records, bool blank_tail, std::size_t zeros) {
  Image out;
  for (int i = 0; i < records; ++i) {
    const std::string body = "body " + std::to_string(i);
    const std::string properties = v1::encode_properties({{"TAGS", "t"}, {"KEYS", "k" + std::to_string(i)}});
    v1::MessageToAppend m;
    m.topic = i % 2 == 0 ? "TopicA" : "TopicB";
    m.queue_id = i % 3;
    m.body = {reinterpret_cast<const std::uint8_t*>(body.data()), body.size()};
    m.properties = properties;
    m.store_host.ip = {10, 0, 0, 1};
    m.store_host.port = 10911;
    const std::size_t at = out.bytes.size();
    out.bytes.resize(at + static_cast<std::size_t>(v1::record_size(m)));
    const v1::Status encoded = v1::encode_record(m, {i, kFileStart + static_cast<std::int64_t>(at), 1700000000000 + i},
                                                 std::span(out.bytes).subspan(at));
    EXPECT_TRUE(encoded.is_ok()) << encoded.to_string();
  }
  out.records = records;
  if (blank_tail) {
    const std::size_t at = out.bytes.size();
    out.bytes.resize(at + 40, 0);
    store_i32(out.bytes.data() + at, 40);
    store_i32(out.bytes.data() + at + 4, v1::kBlankMagic);
  } else {
    out.bytes.resize(out.bytes.size() + zeros, 0);
  }
  return out;
}

struct Walk {
  std::int64_t records = 0;
  std::optional<std::string> broken;
};

// Recovery::scan over one file, without the store around it.
Walk walk(std::span<const std::uint8_t> file, v1::CrcCheck crc) {
  Walk out;
  std::int64_t position = kFileStart;
  const std::int64_t end = kFileStart + static_cast<std::int64_t>(file.size());
  // Each step takes at least a minimal record, so this bounds a correct walk.
  for (std::size_t steps = 0; position < end; ++steps) {
    if (steps > file.size() / v1::kMinRecordSize + 1) {
      out.broken = "the scan does not end";
      return out;
    }
    const auto rest = file.subspan(static_cast<std::size_t>(position - kFileStart));
    const ScanStep step = inspect_scan_position(rest, position, crc);
    if (step.kind == ScanStep::Kind::kEnd) return out;
    if (step.kind == ScanStep::Kind::kProblem) {
      if (step.problem.empty()) out.broken = "a problem without a reason";
      return out;
    }
    if (step.length <= 0 || step.length > static_cast<std::int64_t>(rest.size())) {
      out.broken = "a step of " + std::to_string(step.length) + " bytes with " + std::to_string(rest.size()) + " left";
      return out;
    }
    if (step.kind == ScanStep::Kind::kRecord) {
      const auto* body = step.record.body.data();
      if (step.record.commit_offset != position || step.record.total_size != step.length ||
          (!step.record.body.empty() && (body < rest.data() || body + step.record.body.size() > rest.data() + step.length))) {
        out.broken = "a record that is not where the scan stands";
        return out;
      }
      ++out.records;
    }
    position += step.length;
  }
  return out;
}

std::optional<std::string> check_file(std::span<const std::uint8_t> file) {
  for (const v1::CrcCheck crc : {v1::CrcCheck::kSkip, v1::CrcCheck::kVerify}) {
    if (auto broken = walk(file, crc).broken) return broken;
  }
  return std::nullopt;
}

TEST(RecoveryScanFuzzTest, IntactImagesYieldEveryRecord) {
  for (const Image& i : {image(5, true, 0), image(3, false, 64), image(1, false, 8)}) {
    const Walk w = walk(i.bytes, v1::CrcCheck::kVerify);
    EXPECT_EQ(w.broken, std::nullopt);
    EXPECT_EQ(w.records, i.records);
  }
}

TEST(RecoveryScanFuzzTest, CorruptFilesAreCutWithAReasonNeverOverread) {
  const std::vector<Bytes> seeds = {image(5, true, 0).bytes, image(3, false, 64).bytes, image(1, false, 8).bytes};
  EXPECT_EQ(mqkit::testing::check_seeds_truncations_and_mutations(seeds, check_file, {.iterations = 4000}),
            std::nullopt);
}

TEST(RecoveryScanFuzzTest, EachKindOfDamageIsNamed) {
  Image i = image(2, true, 0);
  const auto first = static_cast<std::size_t>(load_i32(i.bytes.data()));
  const auto at_second = [&](std::span<const std::uint8_t> bytes) {
    return inspect_scan_position(bytes.subspan(first), kFileStart + static_cast<std::int64_t>(first), v1::CrcCheck::kVerify);
  };
  Bytes flipped = i.bytes;
  flipped[first + 90] ^= 0x10;  // inside the second body, which starts at byte 88
  EXPECT_NE(at_second(flipped).problem.find("body CRC mismatch"), std::string::npos) << at_second(flipped).problem;
  Bytes moved = i.bytes;
  store_i64(moved.data() + first + 28, 7);  // the commit offset field
  EXPECT_EQ(at_second(moved).problem, "record says it is at commit offset 7");
  Bytes torn = i.bytes;
  store_i32(torn.data() + first, 0);
  EXPECT_EQ(at_second(torn).problem, "record was not completely written (its size field is still 0)");
  const auto blank_at = i.bytes.size() - 40;
  Bytes short_blank = i.bytes;
  store_i32(short_blank.data() + blank_at, 39);
  EXPECT_EQ(inspect_scan_position(std::span(short_blank).subspan(blank_at), 0, v1::CrcCheck::kSkip).problem,
            "end-of-file blank says 39 bytes but 40 remain");
  EXPECT_EQ(inspect_scan_position(std::span(i.bytes).subspan(i.bytes.size() - 5), 0, v1::CrcCheck::kSkip).problem,
            "only 5 bytes left before the end of the file");
}

}  // namespace
}  // namespace mqkit::plugins::stores::commitlog
