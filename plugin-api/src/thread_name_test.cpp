#include "mqkit/plugin/v1/thread_name.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>

namespace mqkit::plugin::v1 {
namespace {

// Runs `body` on a fresh thread and returns the name it left that thread with.
template <typename Body>
std::string name_left_by(Body body) {
  std::string name;
  std::thread([&] {
    body();
    name = this_thread_name();
  }).join();
  return name;
}

TEST(ThreadNameTest, AShortNameIsKeptWhole) {
  EXPECT_EQ(name_left_by([] { name_this_thread("ReputMessage"); }), "ReputMessage");
}

TEST(ThreadNameTest, ALongNameIsCutToWhatLinuxKeeps) {
  EXPECT_EQ(name_left_by([] { name_this_thread("PullRequestHoldService"); }), "PullRequestHold");
}

TEST(ThreadNameTest, APoolThreadGetsItsIndex) {
  EXPECT_EQ(name_left_by([] { name_this_thread("RemotingIO", 3); }), "RemotingIO-3");
}

TEST(ThreadNameTest, ALongPoolNameIsCutBeforeTheIndex) {
  EXPECT_EQ(name_left_by([] { name_this_thread("ConsumeMessageThread", 12); }), "ConsumeMessa-12");
}

}  // namespace
}  // namespace mqkit::plugin::v1
