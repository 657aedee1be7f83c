#include "route_view.hpp"

#include <gtest/gtest.h>

namespace mqkit::proxy {
namespace {

protocol::TopicRouteData two_brokers() {
  protocol::TopicRouteData route;
  // broker-a: 4 read, 2 write queues, read-write; broker-b: write only.
  route.queue_datas = {{"broker-a", 4, 2, 6, 0}, {"broker-b", 3, 3, 2, 0}};
  route.broker_datas = {{"C", "broker-a", {{0, "10.0.0.1:10911"}, {1, "10.0.0.2:10911"}}},
                        {"C", "broker-b", {{0, "10.0.0.3:10911"}}}};
  return route;
}

v2::Resource topic_resource() {
  v2::Resource topic;
  topic.set_name("TopicA");
  return topic;
}

TEST(RouteViewTest, QueuesPerBrokerIdNumberedReadOnlyThenWriteOnlyThenReadWrite) {
  const auto endpoints = *parse_endpoints("127.0.0.1:8081");
  const auto queues = message_queues(two_brokers(), topic_resource(), endpoints, {v2::NORMAL});
  // broker-a: 2 read-write + 2 read-only, for each of its two ids; broker-b: 3 write-only.
  ASSERT_EQ(queues.size(), 4U + 4U + 3U);
  const auto& first = queues[0];
  EXPECT_EQ(first.broker().name(), "broker-a");
  EXPECT_EQ(first.broker().id(), 0);
  EXPECT_EQ(first.id(), 0);
  EXPECT_EQ(first.permission(), v2::READ);
  EXPECT_EQ(queues[1].permission(), v2::READ);
  EXPECT_EQ(queues[2].id(), 2);
  EXPECT_EQ(queues[2].permission(), v2::READ_WRITE);
  EXPECT_EQ(queues[3].permission(), v2::READ_WRITE);
  EXPECT_EQ(queues[4].broker().id(), 1);  // the slave's view of the same queues
  EXPECT_EQ(queues[4].id(), 0);
  for (int i = 8; i < 11; ++i) {
    EXPECT_EQ(queues[i].broker().name(), "broker-b");
    EXPECT_EQ(queues[i].permission(), v2::WRITE);
    EXPECT_EQ(queues[i].id(), i - 8);
  }
  for (const auto& q : queues) {
    EXPECT_EQ(q.topic().name(), "TopicA");
    ASSERT_EQ(q.broker().endpoints().addresses_size(), 1);  // clients talk to the proxy only
    EXPECT_EQ(q.broker().endpoints().addresses(0).host(), "127.0.0.1");
    EXPECT_EQ(q.broker().endpoints().addresses(0).port(), 8081);
    ASSERT_EQ(q.accept_message_types_size(), 1);
    EXPECT_EQ(q.accept_message_types(0), v2::NORMAL);
  }
}

TEST(RouteViewTest, InaccessibleQueuesAreListedWithoutPermission) {
  protocol::TopicRouteData route;
  route.queue_datas = {{"broker-a", 2, 2, 0, 0}};
  route.broker_datas = {{"C", "broker-a", {{0, "10.0.0.1:10911"}}}};
  const auto queues = message_queues(route, topic_resource(), *parse_endpoints("proxy.example:8081"), {v2::NORMAL});
  ASSERT_EQ(queues.size(), 2U);
  EXPECT_EQ(queues[0].permission(), v2::NONE);
  EXPECT_EQ(queues[0].broker().endpoints().scheme(), v2::DOMAIN_NAME);
}

TEST(RouteViewTest, MessageTypesComeFromTheTopicAttribute) {
  protocol::TopicConfig topic;
  EXPECT_EQ(accepted_message_types(topic), std::vector<v2::MessageType>{v2::NORMAL});
  topic.attributes["message.type"] = "FIFO";
  EXPECT_EQ(accepted_message_types(topic), std::vector<v2::MessageType>{v2::FIFO});
  topic.attributes["message.type"] = "MIXED";
  EXPECT_EQ(accepted_message_types(topic),
            (std::vector<v2::MessageType>{v2::NORMAL, v2::FIFO, v2::DELAY, v2::TRANSACTION}));
  topic.attributes["message.type"] = "SOMETHING";
  EXPECT_EQ(accepted_message_types(topic), std::vector<v2::MessageType>{v2::MESSAGE_TYPE_UNSPECIFIED});
}

TEST(RouteViewTest, ParsesEndpoints) {
  auto v6 = parse_endpoints("[::1]:9000");
  ASSERT_TRUE(v6.has_value());
  EXPECT_EQ(v6->scheme(), v2::IPv6);
  EXPECT_EQ(v6->addresses(0).host(), "::1");
  EXPECT_EQ(parse_endpoints("10.1.2.3:80")->scheme(), v2::IPv4);
  for (const char* bad : {"", "host", ":80", "host:", "host:0", "host:70000", "host:8x"}) {
    EXPECT_FALSE(parse_endpoints(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace mqkit::proxy
