#include "mqkit/protocol/code_names.hpp"

#include <gtest/gtest.h>

#include "mqkit/protocol/codes.hpp"

namespace mqkit::protocol {
namespace {

TEST(CodeNamesTest, RequestAndResponseCodesHaveRocketMqsLowercaseNames) {
  EXPECT_EQ(request_code_name(request_code::kSendMessageV2), "send_message_v2");
  EXPECT_EQ(request_code_name(request_code::kGetRouteInfoByTopic), "get_routeinfo_by_topic");
  EXPECT_EQ(request_code_name(request_code::kHeartBeat), "heart_beat");
  EXPECT_EQ(request_code_name(request_code::kSendReplyMessageV2), "send_reply_message_v2");
  EXPECT_EQ(request_code_name(99999), "");
  EXPECT_EQ(response_code_name(response_code::kPullNotFound), "pull_not_found");
  EXPECT_EQ(response_code_name(response_code::kSuccess), "success");
  EXPECT_EQ(response_code_name(-7), "");
}

TEST(CodeNamesTest, VersionNumbersNameTheirMqVersionConstant) {
  EXPECT_EQ(version_name(0), "V3_0_0_SNAPSHOT");
  EXPECT_EQ(version_name(15), "V3_0_0_FINAL");
  EXPECT_EQ(version_name(16), "V3_0_1_SNAPSHOT");
  EXPECT_EQ(version_name(45), "V3_0_15");
  EXPECT_EQ(version_name(46), "V3_1_0_SNAPSHOT");
  EXPECT_EQ(version_name(86), "V3_3_1_SNAPSHOT");
  EXPECT_EQ(version_name(212), "V4_0_0_SNAPSHOT");
  EXPECT_EQ(version_name(version::kV4_9_4), "V4_9_4");
  EXPECT_EQ(version_name(version::kV3_0_11), "V3_0_11");
  EXPECT_EQ(version_name(version::kV3_0_7_Snapshot), "V3_0_7_SNAPSHOT");
  EXPECT_EQ(version_name(611), "V5_9_9");
  EXPECT_EQ(version_name(612), "HIGHER_VERSION");
  EXPECT_EQ(version_name(100000), "HIGHER_VERSION");
  EXPECT_EQ(version_name(-1), "");
}

}  // namespace
}  // namespace mqkit::protocol
