#include <gtest/gtest.h>
#include <sys/stat.h>

#include <array>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "big_endian.hpp"
#include "fault_env.hpp"
#include "index_file.hpp"
#include "index_service.hpp"
#include "mqkit/plugin/v1/java_hash.hpp"
#include "mutation_testing.hpp"
#include "test_util.hpp"

namespace mqkit::plugins::stores::commitlog::testing {
namespace {

constexpr std::int64_t kForever = std::numeric_limits<std::int64_t>::max();

std::vector<std::int64_t> select(const IndexFile& file, std::string_view key, std::int64_t begin = 0,
                                 std::int64_t end = kForever, std::size_t max = 100) {
  std::vector<std::int64_t> out;
  file.select(key, max, begin, end, out);
  return out;
}

struct Entry {
  std::string key;
  std::int64_t phy_offset;
  std::int64_t store_timestamp;
};

// An index file at `path` holding `entries`, flushed and closed.
void write_index_file(Env& env, const std::string& path, std::int64_t slots, std::int64_t items,
                      const std::vector<Entry>& entries) {
  auto file = IndexFile::create(env, path, slots, items, 0, 0).value();
  for (const Entry& e : entries) ASSERT_TRUE(file->put(e.key, e.phy_offset, e.store_timestamp).value()) << e.key;
  ASSERT_TRUE(file->flush().is_ok());
}

TEST(IndexFileTest, KeyHashIsJavaAbsHashCode) {
  EXPECT_EQ(IndexFile::key_hash("TopicA#k1"), std::abs(v1::java_string_hash("TopicA#k1")));
  // "polygenelubricants" hashes to Integer.MIN_VALUE, whose abs stays negative: RocketMQ uses 0.
  ASSERT_EQ(v1::java_string_hash("polygenelubricants"), std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(IndexFile::key_hash("polygenelubricants"), 0);
  EXPECT_EQ(index_file_name(0).size(), 17u);
}

TEST(IndexFileTest, LayoutMatchesRocketMq) {
  TempDir dir;
  auto env = posix_env();
  const std::string path = dir / "20260101000000000";
  write_index_file(*env, path, 10, 5, {{"T#a", 1000, 5'000'000}, {"T#b", 2000, 5'002'500}});
  const auto bytes = read_file(path);
  ASSERT_EQ(bytes.size(), static_cast<std::size_t>(40 + 10 * 4 + 5 * 20));
  EXPECT_EQ(load_i64(bytes.data()), 5'000'000) << "begin timestamp";
  EXPECT_EQ(load_i64(bytes.data() + 8), 5'002'500) << "end timestamp";
  EXPECT_EQ(load_i64(bytes.data() + 16), 1000) << "begin phy offset";
  EXPECT_EQ(load_i64(bytes.data() + 24), 2000) << "end phy offset";
  EXPECT_EQ(load_i32(bytes.data() + 32), 2) << "hash slot count";
  EXPECT_EQ(load_i32(bytes.data() + 36), 3) << "index count starts at 1";
  const std::int32_t hash_b = IndexFile::key_hash("T#b");
  EXPECT_EQ(load_i32(bytes.data() + 40 + (hash_b % 10) * 4), 2) << "slot holds the newest item number";
  const std::uint8_t* item2 = bytes.data() + 40 + 10 * 4 + 2 * 20;
  EXPECT_EQ(load_i32(item2), hash_b);
  EXPECT_EQ(load_i64(item2 + 4), 2000);
  EXPECT_EQ(load_i32(item2 + 12), 2) << "seconds since the begin timestamp";
}

TEST(IndexFileTest, CollisionsChainNewestFirstAndTimeNarrows) {
  TempDir dir;
  auto env = posix_env();
  // One slot: every key collides and the chain holds them all.
  auto file = IndexFile::create(*env, dir / "20260101000000000", 1, 100, 0, 0).value();
  for (int i = 0; i < 6; ++i) {
    ASSERT_TRUE(file->put(i % 2 == 0 ? "T#even" : "T#odd", 100 * i, 1'000'000 + 10'000 * i).value());
  }
  EXPECT_EQ(select(*file, "T#even"), (std::vector<std::int64_t>{400, 200, 0}));
  EXPECT_EQ(select(*file, "T#odd"), (std::vector<std::int64_t>{500, 300, 100}));
  EXPECT_EQ(select(*file, "T#even", 0, kForever, 2), (std::vector<std::int64_t>{400, 200}));
  EXPECT_EQ(select(*file, "T#even", 1'015'000, 1'035'000), (std::vector<std::int64_t>{200}));
  EXPECT_TRUE(select(*file, "T#none").empty());
}

// Item n of a file with `slots` slots, as RocketMQ lays it out: hash, phy offset, time diff, previous.
std::int64_t item_at(std::int64_t slots, std::int64_t n) { return 40 + slots * 4 + n * 20; }

std::array<std::uint8_t, 4> be32(std::int32_t value) {
  std::array<std::uint8_t, 4> out{};
  store_i32(out.data(), value);
  return out;
}

TEST(IndexFileTest, ACorruptChainEndsTheLookupInsteadOfLoopingForever) {
  TempDir dir;
  auto env = posix_env();
  const std::string path = dir / "20260101000000000";
  write_index_file(*env, path, 1, 10, {{"T#k", 0, 1'000'000}, {"T#k", 100, 1'000'000}, {"T#k", 200, 1'000'000}});
  // Items 1 → 3 → 2 → 1 → ... : item 1 points forward to the newest, which a written chain never does.
  patch_file(path, item_at(1, 1) + 16, be32(3));
  auto file = IndexFile::open(*env, path, 1, 10).value();
  EXPECT_EQ(select(*file, "T#k"), (std::vector<std::int64_t>{200, 100, 0}));
  EXPECT_TRUE(select(*file, "T#other").empty()) << "a key matching no item walks the whole chain once";
  // A begin time near the end of the int64 range (UBSan's signed overflow check, asan preset).
  std::array<std::uint8_t, 8> latest{};
  store_i64(latest.data(), std::numeric_limits<std::int64_t>::max());
  patch_file(path, 0, latest);
  EXPECT_EQ(select(*file, "T#k").size(), 3u);
  // A put counted in the header's hashSlotCount wraps as a Java int does.
  patch_file(path, 32, be32(std::numeric_limits<std::int32_t>::max()));
  ASSERT_TRUE(file->put("T#k", 300, 1'000'000).value());
  EXPECT_EQ(load_i32(read_file(path).data() + 32), std::numeric_limits<std::int32_t>::min());
}

TEST(IndexFileTest, ACorruptCountOrSlotNeverReadsPastTheFile) {
  TempDir dir;
  auto env = posix_env();
  const std::string path = dir / "20260101000000000";
  write_index_file(*env, path, 4, 5, {{"T#k", 100, 1'000'000}});
  const std::int64_t slot = 40 + (IndexFile::key_hash("T#k") % 4) * 4;
  // The header claims a million items and the slot names one far past the file's 5.
  patch_file(path, 36, be32(1'000'000));
  patch_file(path, slot, be32(999'999));
  {
    auto file = IndexFile::open(*env, path, 4, 5).value();
    EXPECT_TRUE(select(*file, "T#k").empty());
    EXPECT_TRUE(file->is_full()) << "no item is written past the file either";
    EXPECT_FALSE(file->put("T#k", 200, 1'000'000).value());
  }
  // A slot or previous pointer past the items written so far is not followed either.
  patch_file(path, 36, be32(2));
  patch_file(path, slot, be32(4));
  auto file = IndexFile::open(*env, path, 4, 5).value();
  EXPECT_TRUE(select(*file, "T#k").empty());
}

// Any bytes at all where an index file should be: opening it either fails with a reason or gives
// a file whose lookups end, visit each item at most once and never read past it, and whose puts
// stay inside it.
TEST(IndexFileTest, ArbitraryFileContentsNeverCrashHangOrOverread) {
  constexpr std::int64_t kSlots = 4;
  constexpr std::int64_t kItems = 8;
  TempDir dir;
  auto env = posix_env();
  const std::string seed_path = dir / "20260101000000000";
  std::vector<Entry> entries;
  for (int i = 0; i < 5; ++i) entries.push_back({i % 2 == 0 ? "T#a" : "T#b", 100 * i, 1'000'000 + 1'000 * i});
  write_index_file(*env, seed_path, kSlots, kItems, entries);
  const auto seed = read_file(seed_path);
  const std::string path = dir / "20260101000000001";
  const auto check = [&](std::span<const std::uint8_t> bytes) -> std::optional<std::string> {
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }
    auto opened = IndexFile::open(*env, path, kSlots, kItems);
    if (!opened.is_ok()) return mqkit::testing::value_or_explained_error(opened, "IndexFile::open");
    for (const std::string_view key : {"T#a", "T#b", "T#none"}) {
      const auto found = select(**opened, key, 0, kForever, 1000);
      if (found.size() >= kItems) return "a lookup of " + std::string(key) + " gave " + std::to_string(found.size()) + " entries";
    }
    auto put = (*opened)->put("T#c", 700, 2'000'000);
    if (!put.is_ok()) return mqkit::testing::value_or_explained_error(put, "IndexFile::put");
    return std::nullopt;
  };
  EXPECT_EQ(mqkit::testing::check_seeds_truncations_and_mutations({seed}, check, {.iterations = 1500}), std::nullopt);
}

TEST(IndexFileTest, FullFileRefusesAndIsSparse) {
  TempDir dir;
  auto env = posix_env();
  const std::string path = dir / "20260101000000000";
  auto file = IndexFile::create(*env, path, 1000, 100'000, 0, 0).value();
  for (int i = 0; i < 99'999; i += 10'000) ASSERT_TRUE(file->put("T#k" + std::to_string(i), i, 1).value());
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 40 + 4000 + 2'000'000);
  EXPECT_LT(st.st_blocks * 512, 1'200'000) << "items are reserved as they come, not all at creation";

  auto small = IndexFile::create(*env, dir / "20260101000000001", 4, 3, 0, 0).value();
  EXPECT_TRUE(small->put("T#a", 1, 1).value());
  EXPECT_TRUE(small->put("T#b", 2, 1).value());
  EXPECT_TRUE(small->is_full()) << "3 items hold 2 entries: item 0 is never used";
  EXPECT_FALSE(small->put("T#c", 3, 1).value());
}

v1::DispatchRecord record_at(std::int64_t offset, std::string_view keys, std::string_view unique = "",
                             std::int64_t timestamp = 1'000'000) {
  v1::DispatchRecord record;
  record.topic = "T";
  record.commit_offset = offset;
  record.size = 100;
  record.store_timestamp = timestamp;
  record.keys = keys;
  record.unique_key = unique;
  return record;
}

TEST(IndexServiceTest, IndexesEveryKeyAndUniqueKeyAndRollsFiles) {
  TempDir dir;
  auto env = std::make_shared<FaultEnv>();
  CapturingHost host;
  IndexService index(*env, Logger(host), dir / "index", 16, 4);  // 3 entries per file
  ASSERT_TRUE(index.build(record_at(0, "a b", "U0")).is_ok());
  env->set_now_ms(env->now_ms() + 5);  // distinct file names
  ASSERT_TRUE(index.build(record_at(100, "  b ", "", 1'001'000)).is_ok());
  ASSERT_TRUE(index.build(record_at(200, "c", "U2", 1'002'000)).is_ok());
  EXPECT_EQ(index.file_count(), 2u) << "the first file held 3 entries";
  EXPECT_EQ(index.query("T", "b", 10, 0, kForever).commit_offsets, (std::vector<std::int64_t>{100, 0}));
  EXPECT_EQ(index.query("T", "U2", 10, 0, kForever).commit_offsets, (std::vector<std::int64_t>{200}));
  EXPECT_TRUE(index.query("Other", "b", 10, 0, kForever).commit_offsets.empty());
  const IndexQuery latest = index.query("T", "c", 10, 0, kForever);
  EXPECT_EQ(latest.last_update_commit_offset, 200);
  EXPECT_EQ(latest.last_update_timestamp, 1'002'000);

  // Re-dispatch after a crash: records already indexed are skipped.
  ASSERT_TRUE(index.build(record_at(100, "b")).is_ok());
  EXPECT_EQ(index.query("T", "b", 10, 0, kForever).commit_offsets.size(), 2u);

  v1::DispatchRecord rollback = record_at(300, "d");
  rollback.sys_flag = v1::sys_flag::kTransactionRollback;
  ASSERT_TRUE(index.build(rollback).is_ok());
  EXPECT_TRUE(index.query("T", "d", 10, 0, kForever).commit_offsets.empty());

  auto deleted = index.delete_expired_files(150);
  ASSERT_TRUE(deleted.is_ok());
  EXPECT_EQ(*deleted, 1) << "the first file ends at offset 100 < 150";
  EXPECT_EQ(index.query("T", "b", 10, 0, kForever).commit_offsets, (std::vector<std::int64_t>{100}));
}

TEST(IndexServiceTest, ReloadsFilesAndResumesAfterATruncatedLog) {
  TempDir dir;
  auto env = posix_env();
  CapturingHost host;
  {
    IndexService index(*env, Logger(host), dir / "index", 16, 100);
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(index.build(record_at(100 * i, "k" + std::to_string(i))).is_ok());
  }
  IndexService index(*env, Logger(host), dir / "index", 16, 100);
  ASSERT_TRUE(index.load().is_ok());
  EXPECT_EQ(index.query("T", "k3", 10, 0, kForever).commit_offsets, (std::vector<std::int64_t>{300}));
  // Recovery cut the log at 250: the record now written at 300 is new and must be indexed.
  index.limit_to(250);
  ASSERT_TRUE(index.build(record_at(300, "fresh")).is_ok());
  EXPECT_EQ(index.query("T", "fresh", 10, 0, kForever).commit_offsets, (std::vector<std::int64_t>{300}));
}

// An index directory holding one file (16 slots, 100 items) with the key "old" at offset 100.
class IndexReloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    IndexService index(*env, Logger(host), dir / "index", 16, 100);
    ASSERT_TRUE(index.build(record_at(100, "old")).is_ok());
  }

  TempDir dir;
  std::shared_ptr<Env> env = posix_env();
  CapturingHost host;
};

TEST_F(IndexReloadTest, FilesLaidOutWithOtherCountsAreRefusedAndAnEmptyOneIsNew) {
  IndexService more_slots(*env, Logger(host), dir / "index", 32, 100);
  const v1::Status refused = more_slots.load();
  EXPECT_EQ(refused.code(), v1::StatusCode::kCorruption);
  EXPECT_NE(refused.message().find("is 2104 bytes, but max_hash_slot_num = 32 and max_index_num = 100 make index "
                                   "files of 2168 bytes"),
            std::string::npos)
      << refused.to_string();
  IndexService fewer_items(*env, Logger(host), dir / "index", 16, 50);
  EXPECT_EQ(fewer_items.load().code(), v1::StatusCode::kCorruption);

  // A crash right after a file was created leaves it empty: it loads as an empty file.
  { std::ofstream(dir / "index/20991231235959999"); }
  IndexService index(*env, Logger(host), dir / "index", 16, 100);
  ASSERT_TRUE(index.load().is_ok());
  EXPECT_EQ(index.query("T", "old", 10, 0, kForever).commit_offsets, (std::vector<std::int64_t>{100}));
}

TEST_F(IndexReloadTest, AFileWithADamagedCountIsNamedAndNewKeysGoToANewFile) {
  const auto names = list_dir(dir / "index");
  ASSERT_EQ(names.size(), 1u);
  patch_file(dir / ("index/" + names[0]), 36, be32(70'000));
  IndexService index(*env, Logger(host), dir / "index", 16, 100);
  ASSERT_TRUE(index.load().is_ok());
  EXPECT_TRUE(host.logged({"index file", names[0], "damaged", "70000 items"}));
  EXPECT_EQ(index.query("T", "old", 10, 0, kForever).commit_offsets, (std::vector<std::int64_t>{100}));
  ASSERT_TRUE(index.build(record_at(200, "new")).is_ok());
  EXPECT_EQ(index.query("T", "new", 10, 0, kForever).commit_offsets, (std::vector<std::int64_t>{200}));
  EXPECT_EQ(list_dir(dir / "index").size(), 2u);
}

}  // namespace
}  // namespace mqkit::plugins::stores::commitlog::testing
