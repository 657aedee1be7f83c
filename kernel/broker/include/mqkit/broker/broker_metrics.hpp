// BrokerMetrics: what the broker's request paths count for the Prometheus exporter
// (docs/metrics.md), with RocketMQ 5's metric names and labels (its BrokerMetricsManager):
// messages and bytes stored per topic and message type, read per topic and consumer group,
// messages dead-lettered, transactions ended, how far each group has pulled, and request latency.
//
// Only built when metrics_exporter_type is PROM (BrokerContext::metrics is null otherwise, and
// the paths count nothing). Counting happens on request and store threads: a LabeledCells
// lookup per request (not per message) and relaxed atomic adds. write() runs on the exporter's
// thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>

#include "mqkit/metrics/exposition.hpp"
#include "mqkit/metrics/histogram.hpp"
#include "mqkit/metrics/labeled_cells.hpp"
#include "mqkit/metrics/rpc_latency.hpp"
#include "mqkit/plugin/v1/message_record.hpp"

namespace mqkit::broker {

// RocketMQ's TopicMessageType as its metrics label messages.
enum class MessageType : std::uint8_t { kNormal, kFifo, kDelay, kTransaction };
std::string_view metrics_label(MessageType type) noexcept;
// RocketMQ's reading of a send's properties: TRAN_MSG=true is a transaction message, a sharding
// key a FIFO one, a delay level or delivery time a delayed one; the rest are normal.
MessageType message_type_of(const plugin::v1::Properties& properties);

// RocketMQ's isSystem label: a system topic (protocol::is_system_topic) or a CID_RMQ_SYS_ group.
bool is_system(std::string_view topic, std::string_view group = {});

class BrokerMetrics {
 public:
  // RocketMQ's rocketmq_message_size buckets: 1 KiB, 4 KiB, 512 KiB, 1, 2 and 4 MiB.
  static constexpr std::int64_t kMessageSizeBuckets[] = {1024, 4096, 512 * 1024, 1024 * 1024, 2 * 1024 * 1024,
                                                         4 * 1024 * 1024};
  // RocketMQ's rocketmq_finish_message_latency buckets, in seconds: 5 s, 1 min, 10 min, 1 h, 12 h, 24 h.
  static constexpr std::int64_t kFinishLatencyBuckets[] = {5, 60, 600, 3600, 12 * 3600, 24 * 3600};

  // `messages` records of `bytes` in all stored in `topic` (for producers, or delivered from the
  // schedule topic). Each message's size is recorded as bytes / messages, as RocketMQ records a
  // batch. Retry and dead-letter topics are not counted (RocketMQ's isRetryOrDlqTopic).
  void count_in(std::string_view topic, MessageType type, std::int64_t messages, std::int64_t bytes);
  // `messages` records of `bytes` in all read from `topic` by `group` (retry and dead-letter
  // topics not counted).
  void count_out(std::string_view topic, std::string_view group, std::int64_t messages, std::int64_t bytes);
  // One message of `group` gone to its dead-letter queue; `topic` as RocketMQ labels it.
  void count_dead_letter(std::string_view group, std::string_view topic);
  // A transaction of `topic` (the half message's real topic) committed or rolled back by its
  // producer, `since_born_ms` after the producer made its half message.
  void count_transaction_end(std::string_view topic, bool committed, std::int64_t since_born_ms);
  // `group`'s next pull of the queue starts at `next_offset` (after a pull that found messages).
  void note_pulled(std::string_view group, std::string_view topic, std::int32_t queue_id, std::int64_t next_offset);

  metrics::RpcLatency& rpc() noexcept { return rpc_; }

  // The counter and histogram families: messages and throughput in and out, message size,
  // dead-lettered messages, rpc latency.
  void write(metrics::ExpositionWriter& out) const;
  // (group, topic, queue id) → the offset noted last.
  std::map<std::tuple<std::string, std::string, std::int32_t>, std::int64_t> pulled_offsets() const;

 private:
  struct InCell {
    metrics::Counter messages;
    metrics::Counter bytes;
    metrics::Histogram<kMessageSizeBuckets> size;
  };
  struct OutCell {
    metrics::Counter messages;
    metrics::Counter bytes;
  };
  struct CountCell {
    metrics::Counter count;
  };
  struct TransactionCell {
    metrics::Counter committed;
    metrics::Counter rolled_back;
    metrics::Histogram<kFinishLatencyBuckets> commit_latency;
  };
  metrics::LabeledCells<InCell, 2> in_;             // topic, message_type
  metrics::LabeledCells<OutCell, 2> out_;           // topic, consumer_group
  metrics::LabeledCells<CountCell, 2> dead_letter_;  // consumer_group, topic
  metrics::LabeledCells<TransactionCell, 1> transactions_;  // topic
  metrics::LabeledCells<metrics::Gauge, 3> pulled_;  // consumer_group, topic, queue id: an offset
  metrics::RpcLatency rpc_;
};

}  // namespace mqkit::broker
