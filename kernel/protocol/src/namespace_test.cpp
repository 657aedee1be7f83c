#include "mqkit/protocol/namespace.hpp"

#include <gtest/gtest.h>

#include "mqkit/protocol/validation.hpp"

namespace mqkit::protocol {
namespace {

TEST(NamespaceTest, TopicsAndGroupsGetTheNamespaceInFront) {
  EXPECT_EQ(wrap_namespace("ns1", "T"), "ns1%T");
  EXPECT_EQ(wrap_namespace("MQ_INST_1_abc", "GID_orders"), "MQ_INST_1_abc%GID_orders");
  EXPECT_EQ(without_namespace("ns1%T", "ns1"), "T");
  EXPECT_EQ(without_namespace("MQ_INST_1_abc%GID_orders", "MQ_INST_1_abc"), "GID_orders");
}

TEST(NamespaceTest, RetryAndDeadLetterTopicsKeepTheirPrefixInFront) {
  EXPECT_EQ(wrap_namespace("ns1", "%RETRY%G"), "%RETRY%ns1%G");
  EXPECT_EQ(wrap_namespace("ns1", "%DLQ%G"), "%DLQ%ns1%G");
  EXPECT_EQ(without_namespace("%RETRY%ns1%G", "ns1"), "%RETRY%G");
  EXPECT_EQ(without_namespace("%DLQ%ns1%G", "ns1"), "%DLQ%G");
  // The retry topic of a wrapped group is the wrapped retry topic.
  EXPECT_EQ(retry_topic(wrap_namespace("ns1", "G")), wrap_namespace("ns1", retry_topic("G")));
}

TEST(NamespaceTest, SystemTopicsAndGroupsAreNeverWrapped) {
  for (const char* name : {"TBW102", "SCHEDULE_TOPIC_XXXX", "RMQ_SYS_TRACE_TOPIC", "RMQ_SYS_TRANS_HALF_TOPIC",
                           "BenchmarkTest", "OFFSET_MOVED_EVENT", "SELF_TEST_TOPIC", "TRANS_CHECK_MAX_TIME_TOPIC",
                           "CHECKPOINT_TOPIC", "rmq_sys_anything", "CID_RMQ_SYS_TRANS"}) {
    EXPECT_TRUE(is_system_resource(name)) << name;
    EXPECT_EQ(wrap_namespace("ns1", name), name);
    EXPECT_EQ(without_any_namespace(name), name);
  }
  EXPECT_FALSE(is_system_resource("T"));
  EXPECT_FALSE(is_system_resource("cid_rmq_sys_x"));  // MixAll.isSysConsumerGroup is case-sensitive
}

TEST(NamespaceTest, WrappingIsIdempotent) {
  for (const char* name : {"T", "%RETRY%G", "%DLQ%G", "TBW102"}) {
    const std::string once = wrap_namespace("ns1", name);
    EXPECT_EQ(wrap_namespace("ns1", once), once) << name;
    EXPECT_TRUE(is_already_with_namespace(once, "ns1") || once == name) << name;
    EXPECT_EQ(without_namespace(once, "ns1"), name) << name;
  }
  EXPECT_FALSE(is_already_with_namespace("T", "ns1"));
  EXPECT_FALSE(is_already_with_namespace("ns1T", "ns1"));
  // Another namespace's name is a name like any other, as in RocketMQ.
  EXPECT_EQ(wrap_namespace("ns1", "ns2%T"), "ns1%ns2%T");
}

TEST(NamespaceTest, UnwrappingLeavesOtherNamespacesAlone) {
  EXPECT_EQ(without_namespace("ns2%T", "ns1"), "ns2%T");
  EXPECT_EQ(without_namespace("%RETRY%ns2%G", "ns1"), "%RETRY%ns2%G");
  EXPECT_EQ(without_namespace("T", "ns1"), "T");
  EXPECT_EQ(without_namespace("ns1%T", ""), "ns1%T");
  EXPECT_EQ(without_any_namespace("ns2%T"), "T");
  EXPECT_EQ(without_any_namespace("%RETRY%ns2%G"), "%RETRY%G");
  EXPECT_EQ(without_any_namespace("%RETRY%G"), "%RETRY%G");
  EXPECT_EQ(without_any_namespace("T"), "T");
}

TEST(NamespaceTest, EmptyNamespaceOrNameChangesNothing) {
  EXPECT_EQ(wrap_namespace("", "T"), "T");
  EXPECT_EQ(wrap_namespace("ns1", ""), "");
  EXPECT_EQ(without_namespace("", "ns1"), "");
}

TEST(NamespaceTest, NamespacesUseTopicCharactersWithoutTheSeparator) {
  EXPECT_TRUE(validate_namespace("MQ_INST_1234_abc-x|y").is_ok());
  EXPECT_TRUE(validate_namespace(std::string(kMaxNamespaceLength, 'n')).is_ok());
  const auto too_long = validate_namespace(std::string(kMaxNamespaceLength + 1, 'n'));
  EXPECT_FALSE(too_long.is_ok());
  EXPECT_NE(too_long.message().find("namespace"), std::string::npos);
  const auto with_separator = validate_namespace("a%b");
  EXPECT_FALSE(with_separator.is_ok());
  EXPECT_NE(with_separator.message().find("'%'"), std::string::npos);
  EXPECT_FALSE(validate_namespace("a b").is_ok());
  EXPECT_FALSE(validate_namespace("").is_ok());
  EXPECT_NE(validate_namespace("a.b").message().find("namespace 'a.b' contains '.'"), std::string::npos);
}

}  // namespace
}  // namespace mqkit::protocol
