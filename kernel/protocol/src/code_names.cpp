#include "mqkit/protocol/code_names.hpp"

#include "mqkit/protocol/codes.hpp"

namespace mqkit::protocol {

std::string_view request_code_name(std::int32_t code) noexcept {
  namespace c = request_code;
  switch (code) {
    case c::kSendMessage: return "send_message";
    case c::kPullMessage: return "pull_message";
    case c::kQueryMessage: return "query_message";
    case c::kQueryConsumerOffset: return "query_consumer_offset";
    case c::kUpdateConsumerOffset: return "update_consumer_offset";
    case c::kUpdateAndCreateTopic: return "update_and_create_topic";
    case c::kUpdateAndCreateTopicList: return "update_and_create_topic_list";
    case c::kGetAllTopicConfig: return "get_all_topic_config";
    case c::kUpdateBrokerConfig: return "update_broker_config";
    case c::kGetBrokerConfig: return "get_broker_config";
    case c::kGetBrokerRuntimeInfo: return "get_broker_runtime_info";
    case c::kGetBrokerConsumeStats: return "get_broker_consume_stats";
    case c::kViewBrokerStatsData: return "view_broker_stats_data";
    case c::kUpdateAndCreateAclConfig: return "update_and_create_acl_config";
    case c::kDeleteAclConfig: return "delete_acl_config";
    case c::kGetBrokerClusterAclInfo: return "get_broker_cluster_acl_info";
    case c::kUpdateGlobalWhiteAddrsConfig: return "update_global_white_addrs_config";
    case c::kUpdateNamesrvConfig: return "update_namesrv_config";
    case c::kGetNamesrvConfig: return "get_namesrv_config";
    case c::kQueryTopicConsumeByWho: return "query_topic_consume_by_who";
    case c::kSearchOffsetByTimestamp: return "search_offset_by_timestamp";
    case c::kGetMaxOffset: return "get_max_offset";
    case c::kGetMinOffset: return "get_min_offset";
    case c::kGetEarliestMsgStoreTime: return "get_earliest_msg_storetime";
    case c::kViewMessageById: return "view_message_by_id";
    case c::kHeartBeat: return "heart_beat";
    case c::kUnregisterClient: return "unregister_client";
    case c::kConsumerSendMsgBack: return "consumer_send_msg_back";
    case c::kEndTransaction: return "end_transaction";
    case c::kGetConsumerListByGroup: return "get_consumer_list_by_group";
    case c::kCheckTransactionState: return "check_transaction_state";
    case c::kNotifyConsumerIdsChanged: return "notify_consumer_ids_changed";
    case c::kLockBatchMq: return "lock_batch_mq";
    case c::kUnlockBatchMq: return "unlock_batch_mq";
    case c::kGetAllConsumerOffset: return "get_all_consumer_offset";
    case c::kGetAllDelayOffset: return "get_all_delay_offset";
    case c::kCheckClientConfig: return "check_client_config";
    case c::kPutKvConfig: return "put_kv_config";
    case c::kGetKvConfig: return "get_kv_config";
    case c::kDeleteKvConfig: return "delete_kv_config";
    case c::kRegisterBroker: return "register_broker";
    case c::kUnregisterBroker: return "unregister_broker";
    case c::kGetRouteInfoByTopic: return "get_routeinfo_by_topic";
    case c::kGetBrokerClusterInfo: return "get_broker_cluster_info";
    case c::kUpdateAndCreateSubscriptionGroup: return "update_and_create_subscriptiongroup";
    case c::kUpdateAndCreateSubscriptionGroupList: return "update_and_create_subscriptiongroup_list";
    case c::kGetAllSubscriptionGroupConfig: return "get_all_subscriptiongroup_config";
    case c::kGetTopicStatsInfo: return "get_topic_stats_info";
    case c::kGetConsumerConnectionList: return "get_consumer_connection_list";
    case c::kGetProducerConnectionList: return "get_producer_connection_list";
    case c::kGetAllTopicListFromNameServer: return "get_all_topic_list_from_nameserver";
    case c::kDeleteSubscriptionGroup: return "delete_subscriptiongroup";
    case c::kGetConsumeStats: return "get_consume_stats";
    case c::kDeleteTopicInBroker: return "delete_topic_in_broker";
    case c::kDeleteTopicInNamesrv: return "delete_topic_in_namesrv";
    case c::kGetKvListByNamespace: return "get_kvlist_by_namespace";
    case c::kResetConsumerClientOffset: return "reset_consumer_client_offset";
    case c::kGetConsumerStatusFromClient: return "get_consumer_status_from_client";
    case c::kInvokeBrokerToResetOffset: return "invoke_broker_to_reset_offset";
    case c::kInvokeBrokerToGetConsumerStatus: return "invoke_broker_to_get_consumer_status";
    case c::kGetTopicsByCluster: return "get_topics_by_cluster";
    case c::kCleanExpiredConsumeQueue: return "clean_expired_consumequeue";
    case c::kGetConsumerRunningInfo: return "get_consumer_running_info";
    case c::kCleanUnusedTopic: return "clean_unused_topic";
    case c::kQueryConsumeQueue: return "query_consume_queue";
    case c::kGetAllProducerInfo: return "get_all_producer_info";
    case c::kDeleteExpiredCommitLog: return "delete_expired_commitlog";
    case c::kGetBrokerHaStatus: return "get_broker_ha_status";
    case c::kConsumeMessageDirectly: return "consume_message_directly";
    case c::kSendMessageV2: return "send_message_v2";
    case c::kSendBatchMessage: return "send_batch_message";
    case c::kQueryDataVersion: return "query_data_version";
    case c::kSendReplyMessage: return "send_reply_message";
    case c::kSendReplyMessageV2: return "send_reply_message_v2";
    case c::kPushReplyMessageToClient: return "push_reply_message_to_client";
    case c::kGetTopicConfig: return "get_topic_config";
    case c::kGetSubscriptionGroupConfig: return "get_subscriptiongroup_config";
    case c::kLitePullMessage: return "lite_pull_message";
    case c::kRecallMessage: return "recall_message";
    case c::kPopMessage: return "pop_message";
    case c::kAckMessage: return "ack_message";
    case c::kChangeMessageInvisibleTime: return "change_message_invisible_time";
    default: return {};
  }
}

std::string_view response_code_name(std::int32_t code) noexcept {
  namespace c = response_code;
  switch (code) {
    case c::kSuccess: return "success";
    case c::kSystemError: return "system_error";
    case c::kSystemBusy: return "system_busy";
    case c::kRequestCodeNotSupported: return "request_code_not_supported";
    case c::kTransactionFailed: return "transaction_failed";
    case c::kFlushDiskTimeout: return "flush_disk_timeout";
    case c::kSlaveNotAvailable: return "slave_not_available";
    case c::kFlushSlaveTimeout: return "flush_slave_timeout";
    case c::kMessageIllegal: return "message_illegal";
    case c::kServiceNotAvailable: return "service_not_available";
    case c::kVersionNotSupported: return "version_not_supported";
    case c::kNoPermission: return "no_permission";
    case c::kTopicNotExist: return "topic_not_exist";
    case c::kTopicExistAlready: return "topic_exist_already";
    case c::kPullNotFound: return "pull_not_found";
    case c::kPullRetryImmediately: return "pull_retry_immediately";
    case c::kPullOffsetMoved: return "pull_offset_moved";
    case c::kQueryNotFound: return "query_not_found";
    case c::kSubscriptionParseFailed: return "subscription_parse_failed";
    case c::kSubscriptionNotExist: return "subscription_not_exist";
    case c::kSubscriptionNotLatest: return "subscription_not_latest";
    case c::kSubscriptionGroupNotExist: return "subscription_group_not_exist";
    case c::kFilterDataNotExist: return "filter_data_not_exist";
    case c::kFilterDataNotLatest: return "filter_data_not_latest";
    case c::kInvalidParameter: return "invalid_parameter";
    case c::kTransactionShouldCommit: return "transaction_should_commit";
    case c::kTransactionShouldRollback: return "transaction_should_rollback";
    case c::kTransactionStateUnknow: return "transaction_state_unknow";
    case c::kTransactionStateGroupWrong: return "transaction_state_group_wrong";
    case c::kNoBuyerId: return "no_buyer_id";
    case c::kNotInCurrentUnit: return "not_in_current_unit";
    case c::kConsumerNotOnline: return "consumer_not_online";
    case c::kConsumeMsgTimeout: return "consume_msg_timeout";
    case c::kNoMessage: return "no_message";
    case c::kFlowControl: return "flow_control";
    case c::kIllegalOperation: return "illegal_operation";
    case c::kGoAway: return "go_away";
    default: return {};
  }
}

std::string version_name(std::int32_t version) {
  // The enum opens with 3.0.0's pre-releases, then lists each released version's _SNAPSHOT and
  // release, version after version; the series below say which patch numbers each minor has.
  static constexpr const char* kFirst[] = {
      "V3_0_0_SNAPSHOT", "V3_0_0_ALPHA1", "V3_0_0_BETA1", "V3_0_0_BETA2", "V3_0_0_BETA3", "V3_0_0_BETA4",
      "V3_0_0_BETA5", "V3_0_0_BETA6_SNAPSHOT", "V3_0_0_BETA6", "V3_0_0_BETA7_SNAPSHOT", "V3_0_0_BETA7",
      "V3_0_0_BETA8_SNAPSHOT", "V3_0_0_BETA8", "V3_0_0_BETA9_SNAPSHOT", "V3_0_0_BETA9", "V3_0_0_FINAL"};
  struct Series {
    int major;
    int minor;
    int first_patch;
    int last_patch;
  };
  static constexpr Series kSeries[] = {
      {3, 0, 1, 15}, {3, 1, 0, 9}, {3, 2, 0, 9}, {3, 3, 1, 9}, {3, 4, 1, 9}, {3, 5, 1, 9}, {3, 6, 1, 9},
      {3, 7, 1, 9},  {3, 8, 1, 9}, {3, 9, 1, 9}, {4, 0, 0, 9}, {4, 1, 0, 9}, {4, 2, 0, 9}, {4, 3, 0, 9},
      {4, 4, 0, 9},  {4, 5, 0, 9}, {4, 6, 0, 9}, {4, 7, 0, 9}, {4, 8, 0, 9}, {4, 9, 0, 9}, {5, 0, 0, 9},
      {5, 1, 0, 9},  {5, 2, 0, 9}, {5, 3, 0, 9}, {5, 4, 0, 9}, {5, 5, 0, 9}, {5, 6, 0, 9}, {5, 7, 0, 9},
      {5, 8, 0, 9},  {5, 9, 0, 9}};
  if (version < 0) return {};
  if (static_cast<std::size_t>(version) < std::size(kFirst)) return kFirst[version];
  std::int32_t rest = version - static_cast<std::int32_t>(std::size(kFirst));
  for (const Series& s : kSeries) {
    const std::int32_t entries = 2 * (s.last_patch - s.first_patch + 1);
    if (rest < entries) {
      return "V" + std::to_string(s.major) + "_" + std::to_string(s.minor) + "_" +
             std::to_string(s.first_patch + rest / 2) + (rest % 2 == 0 ? "_SNAPSHOT" : "");
    }
    rest -= entries;
  }
  return "HIGHER_VERSION";
}

}  // namespace mqkit::protocol
