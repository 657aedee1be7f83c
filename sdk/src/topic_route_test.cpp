#include "mqkit/client/topic_route.hpp"

#include <gtest/gtest.h>

namespace mqkit::client {
namespace {

protocol::BrokerData broker(const std::string& name, bool with_master = true) {
  protocol::BrokerData b;
  b.cluster = "C";
  b.broker_name = name;
  if (with_master) b.broker_addrs[0] = name + ":10911";
  b.broker_addrs[1] = name + "-slave:10911";
  return b;
}

std::vector<std::string> names(const std::vector<MessageQueue>& queues) {
  std::vector<std::string> out;
  for (const auto& q : queues) out.push_back(q.broker_name + "/" + std::to_string(q.queue_id));
  return out;
}

TEST(TopicRouteTest, PublishQueuesAreWritableQueuesOfBrokersWithAMaster) {
  protocol::TopicRouteData route;
  route.queue_datas = {{"broker-b", 4, 2, 6, 0}, {"broker-a", 3, 3, 6, 0}, {"broker-c", 2, 2, 4, 0},
                       {"broker-d", 2, 2, 6, 0}};
  route.broker_datas = {broker("broker-a"), broker("broker-b"), broker("broker-c"), broker("broker-d", false)};
  const auto publish = to_publish_info("T", route);
  EXPECT_FALSE(publish.order_topic);
  EXPECT_EQ(names(publish.queues),
            (std::vector<std::string>{"broker-a/0", "broker-a/1", "broker-a/2", "broker-b/0", "broker-b/1"}));
  EXPECT_EQ(publish.queues.front().topic, "T");
  // Reading does not need a master (or write permission).
  EXPECT_EQ(names(to_subscribe_queues("T", route)),
            (std::vector<std::string>{"broker-a/0", "broker-a/1", "broker-a/2", "broker-b/0", "broker-b/1",
                                      "broker-b/2", "broker-b/3", "broker-c/0", "broker-c/1", "broker-d/0",
                                      "broker-d/1"}));
}

TEST(TopicRouteTest, OrderTopicConfListsThePublishQueues) {
  protocol::TopicRouteData route;
  route.order_topic_conf = "broker-b:2;broker-a:1";
  route.queue_datas = {{"broker-a", 8, 8, 6, 0}};
  route.broker_datas = {broker("broker-a")};
  const auto publish = to_publish_info("T", route);
  EXPECT_TRUE(publish.order_topic);
  EXPECT_EQ(names(publish.queues), (std::vector<std::string>{"broker-b/0", "broker-b/1", "broker-a/0"}));
}

TEST(TopicRouteTest, AnOrderTopicConfClaimingTooManyQueuesIsNotFollowed) {
  protocol::TopicRouteData route;
  route.order_topic_conf = "broker-b:2000000000;broker-a:2";
  const auto publish = to_publish_info("T", route);
  EXPECT_EQ(names(publish.queues), (std::vector<std::string>{"broker-a/0", "broker-a/1"}));
}

TEST(TopicRouteTest, DefaultTopicRouteIsCappedAtTheProducersQueueCount) {
  protocol::TopicRouteData tbw;
  tbw.queue_datas = {{"broker-a", 8, 8, 7, 0}, {"broker-b", 2, 2, 7, 0}};
  tbw.broker_datas = {broker("broker-a"), broker("broker-b")};
  const auto route = route_from_default_topic(tbw, 4);
  const auto info = make_route_info("NewTopic", route, true);
  EXPECT_TRUE(info.from_default_topic);
  EXPECT_EQ(names(info.publish.queues), (std::vector<std::string>{"broker-a/0", "broker-a/1", "broker-a/2",
                                                                  "broker-a/3", "broker-b/0", "broker-b/1"}));
  EXPECT_EQ(info.publish.queues.front().topic, "NewTopic");
}

TEST(TopicRouteTest, SameRouteIgnoresOrder) {
  protocol::TopicRouteData a;
  a.queue_datas = {{"x", 1, 1, 6, 0}, {"y", 1, 1, 6, 0}};
  a.broker_datas = {broker("x"), broker("y")};
  protocol::TopicRouteData b = a;
  std::swap(b.queue_datas[0], b.queue_datas[1]);
  std::swap(b.broker_datas[0], b.broker_datas[1]);
  EXPECT_TRUE(same_route(a, b));
  b.queue_datas[0].write_queue_nums = 2;
  EXPECT_FALSE(same_route(a, b));
}

}  // namespace
}  // namespace mqkit::client
