// Runs the fuzz entry under any compiler through the shared mutation driver: the seed corpus,
// every truncation of each seed, and a fixed number of deterministic pseudo-random mutations.
#include <gtest/gtest.h>

#include "mutation_testing.hpp"
#include "transports/remoting/fuzz/frame_fuzz_entry.hpp"

namespace mqkit::plugins::transports::remoting::testing {
namespace {

TEST(FuzzCorpus, SeedsDecodeAndRoundTrip) {
  ASSERT_GE(fuzz_seed_inputs().size(), 8u);
  EXPECT_EQ(mqkit::testing::check_seeds(fuzz_seed_inputs(), check_fuzz_input), std::nullopt);
}

TEST(FuzzCorpus, EveryTruncationOfEverySeed) {
  EXPECT_EQ(mqkit::testing::check_truncations(fuzz_seed_inputs(), check_fuzz_input), std::nullopt);
}

TEST(FuzzCorpus, DeterministicMutations) {
  EXPECT_EQ(mqkit::testing::check_mutations(fuzz_seed_inputs(), check_fuzz_input), std::nullopt);
}

}  // namespace
}  // namespace mqkit::plugins::transports::remoting::testing
