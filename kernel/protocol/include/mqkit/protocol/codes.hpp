// RocketMQ remoting request and response codes (rocketmq-facts §1.8–1.10).
#pragma once

#include <cstdint>

namespace mqkit::protocol {

namespace request_code {
inline constexpr std::int32_t kSendMessage = 10;
inline constexpr std::int32_t kPullMessage = 11;
inline constexpr std::int32_t kQueryMessage = 12;
inline constexpr std::int32_t kQueryConsumerOffset = 14;
inline constexpr std::int32_t kUpdateConsumerOffset = 15;
inline constexpr std::int32_t kUpdateAndCreateTopic = 17;
inline constexpr std::int32_t kUpdateAndCreateTopicList = 18;
inline constexpr std::int32_t kGetAllTopicConfig = 21;
inline constexpr std::int32_t kUpdateBrokerConfig = 25;
inline constexpr std::int32_t kGetBrokerConfig = 26;
inline constexpr std::int32_t kGetBrokerRuntimeInfo = 28;
inline constexpr std::int32_t kSearchOffsetByTimestamp = 29;
inline constexpr std::int32_t kGetMaxOffset = 30;
inline constexpr std::int32_t kGetMinOffset = 31;
inline constexpr std::int32_t kGetEarliestMsgStoreTime = 32;
inline constexpr std::int32_t kViewMessageById = 33;
inline constexpr std::int32_t kHeartBeat = 34;
inline constexpr std::int32_t kUnregisterClient = 35;
inline constexpr std::int32_t kConsumerSendMsgBack = 36;
inline constexpr std::int32_t kEndTransaction = 37;
inline constexpr std::int32_t kGetConsumerListByGroup = 38;
inline constexpr std::int32_t kCheckTransactionState = 39;
inline constexpr std::int32_t kNotifyConsumerIdsChanged = 40;
// Plain ACL administration (RocketMQ 4.x; docs/acl.md).
inline constexpr std::int32_t kUpdateAndCreateAclConfig = 50;
inline constexpr std::int32_t kDeleteAclConfig = 51;
inline constexpr std::int32_t kGetBrokerClusterAclInfo = 52;
inline constexpr std::int32_t kUpdateGlobalWhiteAddrsConfig = 53;
inline constexpr std::int32_t kLockBatchMq = 41;
inline constexpr std::int32_t kUnlockBatchMq = 42;
// Sent by RocketMQ consumers at start for a subscription that is not TAG (SQL92).
inline constexpr std::int32_t kCheckClientConfig = 46;
inline constexpr std::int32_t kGetAllConsumerOffset = 43;
inline constexpr std::int32_t kGetAllDelayOffset = 45;
inline constexpr std::int32_t kPutKvConfig = 100;
inline constexpr std::int32_t kGetKvConfig = 101;
inline constexpr std::int32_t kDeleteKvConfig = 102;
inline constexpr std::int32_t kRegisterBroker = 103;
inline constexpr std::int32_t kUnregisterBroker = 104;
inline constexpr std::int32_t kGetRouteInfoByTopic = 105;
inline constexpr std::int32_t kGetBrokerClusterInfo = 106;
inline constexpr std::int32_t kUpdateAndCreateSubscriptionGroup = 200;
inline constexpr std::int32_t kGetAllSubscriptionGroupConfig = 201;
inline constexpr std::int32_t kGetTopicStatsInfo = 202;
inline constexpr std::int32_t kGetConsumerConnectionList = 203;
inline constexpr std::int32_t kGetProducerConnectionList = 204;
// Name server: take write permission from (205), or give read and write back to (327), every
// topic queue of a broker name (what `mqadmin wipeWritePerm` / `addWritePerm` send). The answer
// counts the queue entries changed (wipeTopicCount / addTopicCount).
inline constexpr std::int32_t kWipeWritePermOfBroker = 205;
inline constexpr std::int32_t kGetAllTopicListFromNameServer = 206;
inline constexpr std::int32_t kDeleteSubscriptionGroup = 207;
inline constexpr std::int32_t kGetConsumeStats = 208;
inline constexpr std::int32_t kDeleteTopicInBroker = 215;
inline constexpr std::int32_t kDeleteTopicInNamesrv = 216;
inline constexpr std::int32_t kGetKvListByNamespace = 219;
inline constexpr std::int32_t kResetConsumerClientOffset = 220;
inline constexpr std::int32_t kGetConsumerStatusFromClient = 221;
inline constexpr std::int32_t kInvokeBrokerToResetOffset = 222;
inline constexpr std::int32_t kInvokeBrokerToGetConsumerStatus = 223;
inline constexpr std::int32_t kGetTopicsByCluster = 224;
inline constexpr std::int32_t kUpdateAndCreateSubscriptionGroupList = 225;
inline constexpr std::int32_t kQueryTopicConsumeByWho = 300;
inline constexpr std::int32_t kCleanExpiredConsumeQueue = 306;
inline constexpr std::int32_t kGetConsumerRunningInfo = 307;
inline constexpr std::int32_t kConsumeMessageDirectly = 309;
inline constexpr std::int32_t kSendMessageV2 = 310;
inline constexpr std::int32_t kViewBrokerStatsData = 315;
inline constexpr std::int32_t kCleanUnusedTopic = 316;
inline constexpr std::int32_t kGetBrokerConsumeStats = 317;
inline constexpr std::int32_t kUpdateNamesrvConfig = 318;
inline constexpr std::int32_t kGetNamesrvConfig = 319;
inline constexpr std::int32_t kSendBatchMessage = 320;
inline constexpr std::int32_t kQueryConsumeQueue = 321;
inline constexpr std::int32_t kQueryDataVersion = 322;
// Request-reply (protocol/request_reply.hpp): a responder's reply message (the send header,
// long or one-letter keys), and the broker's push of it to the requesting client.
inline constexpr std::int32_t kSendReplyMessage = 324;
inline constexpr std::int32_t kSendReplyMessageV2 = 325;
inline constexpr std::int32_t kPushReplyMessageToClient = 326;
inline constexpr std::int32_t kAddWritePermOfBroker = 327;
inline constexpr std::int32_t kGetAllProducerInfo = 328;
inline constexpr std::int32_t kDeleteExpiredCommitLog = 329;
// PULL_MESSAGE from a lite pull consumer (sysFlag has pull_sys_flag::kLitePull); same header and answer.
// One topic's or one group's config (RocketMQ 5.x tools and dashboards ask for them one by one).
inline constexpr std::int32_t kGetTopicConfig = 351;
inline constexpr std::int32_t kGetSubscriptionGroupConfig = 352;
inline constexpr std::int32_t kLitePullMessage = 361;
// RocketMQ 5.3: cancel a timer message before its delivery, by the recall handle of its send.
inline constexpr std::int32_t kRecallMessage = 370;
// RocketMQ 5's pop consumption (PopMessageProcessor, AckMessageProcessor, ChangeInvisibleTimeProcessor).
inline constexpr std::int32_t kPopMessage = 200050;
inline constexpr std::int32_t kAckMessage = 200051;
inline constexpr std::int32_t kChangeMessageInvisibleTime = 200053;
inline constexpr std::int32_t kGetBrokerHaStatus = 907;
}  // namespace request_code

namespace response_code {
inline constexpr std::int32_t kSuccess = 0;
inline constexpr std::int32_t kSystemError = 1;
inline constexpr std::int32_t kSystemBusy = 2;
inline constexpr std::int32_t kRequestCodeNotSupported = 3;
inline constexpr std::int32_t kTransactionFailed = 4;
inline constexpr std::int32_t kFlushDiskTimeout = 10;
inline constexpr std::int32_t kSlaveNotAvailable = 11;
inline constexpr std::int32_t kFlushSlaveTimeout = 12;
inline constexpr std::int32_t kMessageIllegal = 13;
inline constexpr std::int32_t kServiceNotAvailable = 14;
inline constexpr std::int32_t kVersionNotSupported = 15;
inline constexpr std::int32_t kNoPermission = 16;
inline constexpr std::int32_t kTopicNotExist = 17;
inline constexpr std::int32_t kTopicExistAlready = 18;
inline constexpr std::int32_t kPullNotFound = 19;
inline constexpr std::int32_t kPullRetryImmediately = 20;
inline constexpr std::int32_t kPullOffsetMoved = 21;
inline constexpr std::int32_t kQueryNotFound = 22;
inline constexpr std::int32_t kSubscriptionParseFailed = 23;
inline constexpr std::int32_t kSubscriptionNotExist = 24;
inline constexpr std::int32_t kSubscriptionNotLatest = 25;
inline constexpr std::int32_t kSubscriptionGroupNotExist = 26;
inline constexpr std::int32_t kFilterDataNotExist = 27;
inline constexpr std::int32_t kFilterDataNotLatest = 28;
inline constexpr std::int32_t kInvalidParameter = 29;
inline constexpr std::int32_t kTransactionShouldCommit = 200;
inline constexpr std::int32_t kTransactionShouldRollback = 201;
inline constexpr std::int32_t kTransactionStateUnknow = 202;
inline constexpr std::int32_t kTransactionStateGroupWrong = 203;
inline constexpr std::int32_t kNoBuyerId = 204;
inline constexpr std::int32_t kNotInCurrentUnit = 205;
inline constexpr std::int32_t kConsumerNotOnline = 206;
inline constexpr std::int32_t kConsumeMsgTimeout = 207;
inline constexpr std::int32_t kNoMessage = 208;
inline constexpr std::int32_t kUpdateAndCreateAclConfigFailed = 209;
inline constexpr std::int32_t kDeleteAclConfigFailed = 210;
inline constexpr std::int32_t kUpdateGlobalWhiteAddrsConfigFailed = 211;
inline constexpr std::int32_t kFlowControl = 215;
inline constexpr std::int32_t kIllegalOperation = 604;
inline constexpr std::int32_t kGoAway = 1500;
}  // namespace response_code

// PullSysFlag: bits of a PULL_MESSAGE request's sysFlag (rocketmq-facts §2.4).
namespace pull_sys_flag {
inline constexpr std::int32_t kCommitOffset = 0x1;
inline constexpr std::int32_t kSuspend = 0x2;
inline constexpr std::int32_t kSubscription = 0x4;
inline constexpr std::int32_t kClassFilter = 0x8;
inline constexpr std::int32_t kLitePull = 0x10;

constexpr std::int32_t build(bool commit_offset, bool suspend, bool subscription, bool class_filter) {
  return (commit_offset ? kCommitOffset : 0) | (suspend ? kSuspend : 0) | (subscription ? kSubscription : 0) |
         (class_filter ? kClassFilter : 0);
}
}  // namespace pull_sys_flag

// Permission bits of topics and brokers.
namespace perm {
inline constexpr std::int32_t kPriority = 8;
inline constexpr std::int32_t kRead = 4;
inline constexpr std::int32_t kWrite = 2;
inline constexpr std::int32_t kInherit = 1;
inline constexpr bool readable(std::int32_t p) { return (p & kRead) != 0; }
inline constexpr bool writeable(std::int32_t p) { return (p & kWrite) != 0; }
}  // namespace perm

// Versions a peer announces in the header's `version` (MQVersion ordinals).
namespace version {
inline constexpr std::int32_t kV3_0_7_Snapshot = 28;  // first to answer GET_CONSUMER_STATUS_FROM_CLIENT
inline constexpr std::int32_t kV3_0_11 = 37;
inline constexpr std::int32_t kV4_9_4 = 401;  // first to get standard-JSON routes
}  // namespace version

}  // namespace mqkit::protocol
