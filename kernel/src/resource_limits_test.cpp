#include "mqkit/kernel/resource_limits.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>

namespace mqkit::kernel {
namespace {

TEST(ResourceLimitsTest, RaisesTheSoftOpenFilesLimitToTheHardOne) {
  rlimit original{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &original), 0);
  if (original.rlim_max != RLIM_INFINITY && original.rlim_max < 64) GTEST_SKIP() << "hard limit too low to lower";
  rlimit lowered = original;
  lowered.rlim_cur = 32;  // as a service manager's low default would leave it
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &lowered), 0);

  const OpenFilesLimit limit = raise_open_files_limit();
  EXPECT_EQ(limit.before, 32u);
  EXPECT_GT(limit.after, 32u);
  rlimit now{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &now), 0);
  EXPECT_EQ(now.rlim_cur, limit.after);
  if (original.rlim_max != RLIM_INFINITY) {
    EXPECT_EQ(now.rlim_cur, original.rlim_max);
  }

  const OpenFilesLimit again = raise_open_files_limit();  // nothing left to raise
  EXPECT_EQ(again.before, again.after);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &original), 0);
}

}  // namespace
}  // namespace mqkit::kernel
