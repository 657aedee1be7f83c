#include "mqkit/protocol/validation.hpp"

#include <gtest/gtest.h>

namespace mqkit::protocol {
namespace {

TEST(ValidationTest, TopicNamesFollowRocketMqCharsetAndLength) {
  EXPECT_TRUE(validate_topic("Topic_A-1%|x").is_ok());
  EXPECT_FALSE(validate_topic("").is_ok());
  EXPECT_FALSE(validate_topic("bad topic").is_ok());
  EXPECT_TRUE(validate_topic(std::string(kMaxTopicLength, 't')).is_ok());
  EXPECT_FALSE(validate_topic(std::string(kMaxTopicLength + 1, 't')).is_ok());
}

TEST(ValidationTest, SystemTopicsAreTheTopicValidatorSet) {
  for (const char* topic : {"TBW102", "SCHEDULE_TOPIC_XXXX", "SCHEDULE_TOPIC_XXXX_V2", "BenchmarkTest",
                            "RMQ_SYS_TRANS_HALF_TOPIC", "RMQ_SYS_TRACE_TOPIC", "RMQ_SYS_TRANS_OP_HALF_TOPIC",
                            "TRANS_CHECK_MAX_TIME_TOPIC", "SELF_TEST_TOPIC", "OFFSET_MOVED_EVENT", "CHECKPOINT_TOPIC",
                            "rmq_sys_anything"}) {
    EXPECT_TRUE(is_system_topic(topic)) << topic;
  }
  for (const char* topic : {"TopicTest", "Benchmark", "RMQ_SYS", "%RETRY%group"}) {
    EXPECT_FALSE(is_system_topic(topic)) << topic;
  }
}

TEST(ValidationTest, SystemGroupsAreMixAllsPredefinedAndCidRmqSys) {
  for (const char* group : {"TOOLS_CONSUMER", "DEFAULT_PRODUCER", "CID_RMQ_SYS_TRANS", "CID_RMQ_SYS_ANYTHING",
                            "__MONITOR_CONSUMER", "CID_ONSAPI_PULL"}) {
    EXPECT_TRUE(is_system_group(group)) << group;
  }
  for (const char* group : {"Billing", "TOOLS_CONSUMER_2", "CID_RMQ", "default_consumer"}) {
    EXPECT_FALSE(is_system_group(group)) << group;
  }
}

TEST(ValidationTest, OnlyBrokerOwnedTopicsRefuseProducers) {
  for (const char* topic : {"SCHEDULE_TOPIC_XXXX", "SCHEDULE_TOPIC_XXXX_V2", "RMQ_SYS_TRANS_HALF_TOPIC",
                            "RMQ_SYS_TRANS_OP_HALF_TOPIC", "TRANS_CHECK_MAX_TIME_TOPIC", "SELF_TEST_TOPIC",
                            "OFFSET_MOVED_EVENT"}) {
    EXPECT_TRUE(is_not_allowed_send_topic(topic)) << topic;
  }
  for (const char* topic : {"TBW102", "BenchmarkTest", "RMQ_SYS_TRACE_TOPIC", "rmq_sys_x", "TopicTest"}) {
    EXPECT_FALSE(is_not_allowed_send_topic(topic)) << topic;
  }
}

}  // namespace
}  // namespace mqkit::protocol
