// ConsumerConfig: a consumer's own settings (RocketMQ DefaultMQPushConsumer / DefaultLitePullConsumer
// fields) plus the ClientConfig it shares with every client. Defaults are RocketMQ 4.9's
// (rocketmq-facts §4.1); the allocator plugin is ClientConfig::allocator ([consumer.allocator]).
//
// From TOML, [consumer] holds the keys of consumer_schema(); see also client_config.hpp.
// A plain value type; not synchronized.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "mqkit/client/client_config.hpp"

namespace mqkit::client {

enum class MessageModel : std::uint8_t {
  kClustering,    // the group shares the queues; offsets kept by the brokers
  kBroadcasting,  // every consumer reads every queue; offsets kept in a local file
};

enum class ConsumeFromWhere : std::uint8_t {
  kLastOffset,   // a group new to a queue starts at its end (retry topics: at 0)
  kFirstOffset,  // ... at offset 0
  kTimestamp,    // ... at the first message stored at or after consume_timestamp
};

// RocketMQ's names: "CLUSTERING", "CONSUME_FROM_LAST_OFFSET", ...
std::string_view to_string(MessageModel model) noexcept;
std::string_view to_string(ConsumeFromWhere where) noexcept;

struct ConsumerConfig {
  ClientConfig client{};
  std::string group{};  // consumerGroup; required
  MessageModel message_model = MessageModel::kClustering;
  ConsumeFromWhere consume_from_where = ConsumeFromWhere::kLastOffset;
  // For kTimestamp: local time "yyyyMMddHHmmss" as RocketMQ; empty = half an hour before start.
  std::string consume_timestamp{};
  // Messages asked for per PULL_MESSAGE (pullBatchSize), 1..1024.
  int pull_batch_size = 32;
  // Messages handed to one listener call (consumeMessageBatchMaxSize), 1..1024.
  int consume_message_batch_max_size = 1;
  // A queue is not pulled while it caches more messages / body bytes than this.
  int pull_threshold_for_queue = 1000;
  std::size_t pull_threshold_size_for_queue = 100 * 1024 * 1024;
  // Concurrent consumption: a queue is not pulled while its cached offsets span more than this.
  std::int64_t consume_concurrently_max_span = 2000;
  // Delivery attempts before a message goes to %DLQ%<group>. -1: RocketMQ's default, 16 for
  // concurrent listeners and unlimited for orderly ones.
  int max_reconsume_times = -1;
  // Concurrent: a message whose listener call started longer ago than this is sent back for
  // redelivery through %RETRY%<group> (delay level 3) and leaves the process queue, so that a
  // stuck listener does not hold the queue's offset back (consumeTimeout). Checked every
  // consume_timeout. TOML takes whole minutes (1..1440); code may set any positive duration.
  std::chrono::milliseconds consume_timeout{std::chrono::minutes(15)};
  // Threads running listeners (consumeThreadMin = Max in RocketMQ), 1..1000.
  int consume_thread_count = 20;
  // Long polling: how long a broker may hold a pull (brokerSuspendMaxTimeMillis) and how long
  // the client waits for its answer (consumerTimeoutMillisWhenSuspend).
  std::chrono::milliseconds broker_suspend_max_time{15000};
  std::chrono::milliseconds consumer_timeout_when_suspend{30000};
  // Pause before pulling a queue again after a failed pull (pullTimeDelayMillsWhenException).
  std::chrono::milliseconds pull_time_delay_when_exception{1000};
  // Pause between pulls of one queue (pullInterval); 0 = pull again as soon as messages arrive.
  std::chrono::milliseconds pull_interval{0};
  // Orderly: pause before an orderly listener's SUSPEND_CURRENT_QUEUE_A_MOMENT is retried.
  std::chrono::milliseconds suspend_current_queue_time{1000};
  // Orderly: queues are re-locked on the brokers this often (rocketmq.client.rebalance.lockInterval).
  std::chrono::milliseconds lock_interval{20000};
  // Broadcasting offsets live in <offset_store_dir>/<client id>/<group>/offsets.json; empty =
  // $HOME/.rocketmq_offsets (rocketmq.client.localOffsetStoreDir).
  std::filesystem::path offset_store_dir{};

  // Message trace (RocketMQ enableMsgTrace, customizedTraceTopic; docs/sdk.md "Message trace"):
  // SubBefore and SubAfter records around every push listener call, or of every batch a lite pull
  // consumer's poll() returns, go to the trace topic through an inner trace producer. Empty topic
  // = RMQ_SYS_TRACE_TOPIC.
  bool enable_msg_trace = false;
  std::string customized_trace_topic = "RMQ_SYS_TRACE_TOPIC";

  // ---- Lite pull consumer (DefaultLitePullConsumer) --------------------------------------------
  // Commit the positions poll() reached every auto_commit_interval (checked in poll) and at shutdown.
  bool auto_commit = true;
  std::chrono::milliseconds auto_commit_interval{5000};
  // How long poll() without a timeout waits for messages (pollTimeoutMillis).
  std::chrono::milliseconds poll_timeout{5000};
  // No queue is pulled while this many pulled messages wait for poll() in all (pullThresholdForAll).
  int pull_threshold_for_all = 10000;
  // How often the queues of topics with a TopicMessageQueueChangeListener are looked up on the
  // name server (topicMetadataCheckIntervalMillis).
  std::chrono::milliseconds topic_metadata_check_interval{30000};

  // InvalidArgument naming the first bad value (client settings included).
  Status validate() const;
  // max_reconsume_times with -1 resolved for the listener kind.
  int effective_max_reconsume_times(bool orderly) const noexcept;
  // The local offsets file of broadcasting consumers.
  std::filesystem::path local_offsets_file(std::string_view client_id) const;
};

// Schema of the [consumer] section ([consumer.allocator] is read by load_client_config).
const plugin::v1::ConfigSchema& consumer_schema();

// Reads [consumer] and everything load_client_config reads.
Result<ConsumerConfig> load_consumer_config(kernel::Bootstrap& boot);

// consume_timestamp ("yyyyMMddHHmmss", local time) in ms since the epoch; InvalidArgument when
// malformed. Empty: now minus half an hour.
Result<std::int64_t> parse_consume_timestamp(std::string_view text);

}  // namespace mqkit::client
