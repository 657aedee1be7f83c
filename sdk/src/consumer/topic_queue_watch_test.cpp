// TopicQueueWatch against a scripted route source: which checks call which listener, with what.
#include "topic_queue_watch.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace mqkit::client {
namespace {

// Queues 0..count-1 of `topic` on broker-a.
std::vector<MessageQueue> queues_of(const std::string& topic, int count) {
  std::vector<MessageQueue> out;
  for (int id = 0; id < count; ++id) out.push_back(MessageQueue{topic, "broker-a", id});
  return out;
}

std::set<MessageQueue> set_of(const std::vector<MessageQueue>& queues) { return {queues.begin(), queues.end()}; }

// A name server whose answers the test sets: a queue count per topic; no entry = no route.
class ScriptedRoutes {
 public:
  std::map<std::string, int> counts;
  int lookups = 0;
  TopicQueueWatch::QueueSource source() {
    return [this](const std::string& topic) -> Result<std::vector<MessageQueue>> {
      ++lookups;
      const auto it = counts.find(topic);
      if (it == counts.end()) return Status::not_found("No topic route info in name server for the topic: " + topic);
      return queues_of(topic, it->second);
    };
  }
};

struct Call {
  std::string topic;
  std::set<MessageQueue> queues;
  bool operator==(const Call&) const = default;
};

class TopicQueueWatchTest : public ::testing::Test {
 protected:
  TopicMessageQueueChangeListener recorder() {
    return [this](const std::string& topic, const std::set<MessageQueue>& queues) { calls_.push_back({topic, queues}); };
  }

  ScriptedRoutes routes_;
  TopicQueueWatch watch_;
  std::vector<Call> calls_;
};

TEST_F(TopicQueueWatchTest, OnlyChangesFromTheBaselineAreReported) {
  routes_.counts = {{"T", 2}};
  EXPECT_TRUE(watch_.empty());
  watch_.watch("T", recorder(), std::nullopt);
  EXPECT_FALSE(watch_.empty());
  watch_.take_baseline(routes_.source());
  watch_.check(routes_.source());
  watch_.check(routes_.source());
  EXPECT_TRUE(calls_.empty());  // the queues at start are no change
  EXPECT_EQ(routes_.lookups, 3);

  routes_.counts["T"] = 4;
  watch_.check(routes_.source());
  ASSERT_EQ(calls_.size(), 1u);
  EXPECT_EQ(calls_[0], (Call{"T", set_of(queues_of("T", 4))}));  // the full set, not the difference
  watch_.check(routes_.source());
  EXPECT_EQ(calls_.size(), 1u);  // reported once

  routes_.counts["T"] = 1;
  watch_.check(routes_.source());
  ASSERT_EQ(calls_.size(), 2u);
  EXPECT_EQ(calls_[1], (Call{"T", set_of(queues_of("T", 1))}));
}

TEST_F(TopicQueueWatchTest, AGivenBaselineIsKeptAndNotLookedUpAgain) {
  routes_.counts = {{"T", 2}};
  watch_.watch("T", recorder(), set_of(queues_of("T", 2)));
  watch_.take_baseline(routes_.source());
  EXPECT_EQ(routes_.lookups, 0);
  watch_.check(routes_.source());
  EXPECT_TRUE(calls_.empty());
  // Watching with an older set: the next check reports the difference to it.
  watch_.watch("T", recorder(), set_of(queues_of("T", 1)));
  watch_.check(routes_.source());
  EXPECT_EQ(calls_, (std::vector<Call>{{"T", set_of(queues_of("T", 2))}}));
}

TEST_F(TopicQueueWatchTest, ATopicWithoutRouteIsReportedOnceItHasOne) {
  watch_.watch("New", recorder(), std::nullopt);
  watch_.take_baseline(routes_.source());  // fails: no baseline
  watch_.check(routes_.source());
  EXPECT_TRUE(calls_.empty());
  routes_.counts["New"] = 3;
  watch_.check(routes_.source());
  EXPECT_EQ(calls_, (std::vector<Call>{{"New", set_of(queues_of("New", 3))}}));
  // A failed look-up later (the name server lost it, or timed out) changes nothing.
  routes_.counts.erase("New");
  watch_.check(routes_.source());
  routes_.counts["New"] = 3;
  watch_.check(routes_.source());
  EXPECT_EQ(calls_.size(), 1u);
}

TEST_F(TopicQueueWatchTest, EachTopicHasItsListenerAndAThrowingOneStopsNoOther) {
  routes_.counts = {{"A", 1}, {"B", 1}};
  int thrown = 0;
  watch_.watch("A", [&thrown](const std::string&, const std::set<MessageQueue>&) {
    ++thrown;
    throw std::runtime_error("listener bug");
  }, std::nullopt);
  watch_.watch("B", recorder(), std::nullopt);
  watch_.take_baseline(routes_.source());
  routes_.counts = {{"A", 2}, {"B", 2}};
  watch_.check(routes_.source());
  EXPECT_EQ(thrown, 1);
  EXPECT_EQ(calls_, (std::vector<Call>{{"B", set_of(queues_of("B", 2))}}));
  watch_.check(routes_.source());
  EXPECT_EQ(thrown, 1);  // its change was taken, though the listener threw
  // Registering again replaces the listener.
  watch_.watch("A", recorder(), set_of(queues_of("A", 2)));
  routes_.counts["A"] = 3;
  watch_.check(routes_.source());
  EXPECT_EQ(thrown, 1);
  ASSERT_EQ(calls_.size(), 2u);
  EXPECT_EQ(calls_[1].topic, "A");
}

}  // namespace
}  // namespace mqkit::client
