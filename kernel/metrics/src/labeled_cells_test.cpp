#include "mqkit/metrics/labeled_cells.hpp"

#include <gtest/gtest.h>

#include <map>
#include <thread>
#include <vector>

#include "mqkit/metrics/histogram.hpp"

namespace mqkit::metrics {
namespace {

struct Cell {
  Counter messages;
};

TEST(LabeledCells, SameLabelsSameCellOtherLabelsOtherCell) {
  LabeledCells<Cell, 2> cells;
  Cell& a = cells.at({"T", "normal"});
  EXPECT_EQ(&a, &cells.at({"T", "normal"}));
  EXPECT_NE(&a, &cells.at({"T", "delay"}));
  EXPECT_NE(&a, &cells.at({"U", "normal"}));
}

TEST(LabeledCells, FindSeesOnlyCellsAtCreated) {
  LabeledCells<Cell, 2> cells;
  EXPECT_EQ(cells.find({"T", "g"}), nullptr);
  Cell& created = cells.at({"T", "g"});
  EXPECT_EQ(cells.find({"T", "g"}), &created);
  EXPECT_EQ(cells.find({"T", "h"}), nullptr);
  EXPECT_EQ(cells.find({"Tg", ""}), nullptr);
}

TEST(LabeledCells, LabelBoundariesAreNotAmbiguous) {
  LabeledCells<Cell, 2> cells;
  EXPECT_NE(&cells.at({"ab", "c"}), &cells.at({"a", "bc"}));
  EXPECT_NE(&cells.at({"", "x"}), &cells.at({"x", ""}));
}

TEST(LabeledCells, ForEachVisitsEveryCellWithItsLabels) {
  LabeledCells<Cell, 2> cells;
  cells.at({"T", "g1"}).messages.add(3);
  cells.at({"T", "g2"}).messages.add(4);
  cells.at({"U", "g1"}).messages.add(5);
  std::map<std::pair<std::string, std::string>, std::int64_t> seen;
  cells.for_each([&](const auto& labels, const Cell& cell) { seen[{labels[0], labels[1]}] += cell.messages.value(); });
  const std::map<std::pair<std::string, std::string>, std::int64_t> expected{
      {{"T", "g1"}, 3}, {{"T", "g2"}, 4}, {{"U", "g1"}, 5}};
  EXPECT_EQ(seen, expected);
}

TEST(LabeledCells, ConcurrentUpdatesAreAllCounted) {
  LabeledCells<Cell, 1> cells;
  constexpr int kThreads = 4;
  constexpr int kAdds = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&cells, t] {
      for (int i = 0; i < kAdds; ++i) {
        cells.at({"shared"}).messages.add(1);
        cells.at({"topic-" + std::to_string((i + t) % 50)}).messages.add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  std::int64_t shared = 0;
  std::int64_t others = 0;
  std::size_t count = 0;
  cells.for_each([&](const auto& labels, const Cell& cell) {
    ++count;
    (labels[0] == "shared" ? shared : others) += cell.messages.value();
  });
  EXPECT_EQ(shared, kThreads * kAdds);
  EXPECT_EQ(others, kThreads * kAdds);
  EXPECT_EQ(count, 51u);
}

constexpr std::int64_t kBounds[] = {10, 100};

TEST(Histogram, ValueOnABoundGoesToThatBucketAndLargerOnesOverflow) {
  Histogram<kBounds> h;
  h.observe(0);
  h.observe(10);
  h.observe(11);
  h.observe(100);
  h.observe(101);
  h.observe(5000);
  h.observe(7, 3);
  const HistogramSnapshot s = h.snapshot();
  EXPECT_EQ(s.buckets, (std::vector<std::uint64_t>{5, 2, 2}));
  EXPECT_EQ(s.sum, 0 + 10 + 11 + 100 + 101 + 5000 + 3 * 7);
  ASSERT_EQ(s.upper_bounds.size(), 2u);
  EXPECT_EQ(s.upper_bounds[1], 100);
}

}  // namespace
}  // namespace mqkit::metrics
