#include "bench_stats.hpp"

#include <gtest/gtest.h>

namespace mqkit::bench {
namespace {

using Texts = std::vector<std::pair<std::string, std::uint64_t>>;

TEST(SendErrorTextsTest, CountsEachDistinctTextAndKeepsOnlyTheFirstFew) {
  SendErrorTexts texts;
  texts.note("TIMEOUT: a", 1);
  texts.note("SYSTEM_BUSY: b", 32);
  texts.note("TIMEOUT: a", 2);
  EXPECT_EQ(texts.snapshot(), (Texts{{"TIMEOUT: a", 3}, {"SYSTEM_BUSY: b", 32}}));
  for (int i = 0; i < 10; ++i) texts.note("other " + std::to_string(i), 1);
  EXPECT_EQ(texts.snapshot().size(), 4u) << "a run failing every send with its own text stays short";
}

TEST(SendErrorTextsTest, TheMeasurementStartsWithoutTheWarmUpsFailures) {
  BenchStats stats;
  stats.send_error_texts.note("warm-up failure", 1);
  stats.begin_measurement();
  EXPECT_TRUE(stats.send_error_texts.snapshot().empty());
}

}  // namespace
}  // namespace mqkit::bench
