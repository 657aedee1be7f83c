#include "mqkit/broker/broker_metrics.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "mqkit/broker/send/outgoing_message.hpp"
#include "mqkit/protocol/validation.hpp"

namespace mqkit::broker {

namespace {

using metrics::MetricType;

// Message properties RocketMQ reads to tell a message's type (MessageConst).
constexpr std::string_view kShardingKey = "__SHARDINGKEY";
constexpr std::string_view kDelayProperties[] = {"__STARTDELIVERTIME", plugin::v1::property::kDelayLevel,
                                                  "TIMER_DELIVER_MS", "TIMER_DELAY_SEC", "TIMER_DELAY_MS"};
constexpr std::string_view kSystemGroupPrefix = "cid_rmq_sys_";  // MixAll.CID_RMQ_SYS_PREFIX, any case

bool is_retry_or_dead_letter(std::string_view topic) {
  return topic.starts_with(protocol::kRetryGroupTopicPrefix) || topic.starts_with(protocol::kDlqGroupTopicPrefix);
}

std::string_view bool_label(bool value) { return value ? "true" : "false"; }

}  // namespace

std::string_view metrics_label(MessageType type) noexcept {
  switch (type) {
    case MessageType::kFifo:
      return "fifo";
    case MessageType::kDelay:
      return "delay";
    case MessageType::kTransaction:
      return "transaction";
    case MessageType::kNormal:
      break;
  }
  return "normal";
}

MessageType message_type_of(const plugin::v1::Properties& properties) {
  // Java's Boolean.parseBoolean.
  const auto prepared = get_property(properties, plugin::v1::property::kTransactionPrepared);
  if (prepared && prepared->size() == 4 &&
      std::equal(prepared->begin(), prepared->end(), "true",
                 [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; })) {
    return MessageType::kTransaction;
  }
  if (get_property(properties, kShardingKey)) return MessageType::kFifo;
  for (const std::string_view name : kDelayProperties) {
    if (get_property(properties, name)) return MessageType::kDelay;
  }
  return MessageType::kNormal;
}

bool is_system(std::string_view topic, std::string_view group) {
  if (protocol::is_system_topic(topic)) return true;
  return group.size() >= kSystemGroupPrefix.size() &&
         std::equal(kSystemGroupPrefix.begin(), kSystemGroupPrefix.end(), group.begin(),
                    [](char prefix, char c) { return std::tolower(static_cast<unsigned char>(c)) == prefix; });
}

void BrokerMetrics::count_in(std::string_view topic, MessageType type, std::int64_t messages, std::int64_t bytes) {
  if (messages <= 0 || is_retry_or_dead_letter(topic)) return;
  InCell& cell = in_.at({topic, metrics_label(type)});
  cell.messages.add(messages);
  cell.bytes.add(bytes);
  cell.size.observe(bytes / messages, static_cast<std::uint64_t>(messages));
}

void BrokerMetrics::count_out(std::string_view topic, std::string_view group, std::int64_t messages,
                              std::int64_t bytes) {
  if (messages <= 0 || is_retry_or_dead_letter(topic)) return;
  OutCell& cell = out_.at({topic, group});
  cell.messages.add(messages);
  cell.bytes.add(bytes);
}

void BrokerMetrics::count_dead_letter(std::string_view group, std::string_view topic) {
  dead_letter_.at({group, topic}).count.add(1);
}

void BrokerMetrics::count_transaction_end(std::string_view topic, bool committed, std::int64_t since_born_ms) {
  TransactionCell& cell = transactions_.at({topic});
  if (!committed) return cell.rolled_back.add(1);
  cell.committed.add(1);
  // RocketMQ records whole seconds.
  cell.commit_latency.observe(std::max<std::int64_t>(0, since_born_ms) / 1000);
}

void BrokerMetrics::note_pulled(std::string_view group, std::string_view topic, std::int32_t queue_id,
                                std::int64_t next_offset) {
  if (is_retry_or_dead_letter(topic)) return;  // the consumer progress gauges leave them out
  char digits[12];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, queue_id);
  pulled_.at({group, topic, std::string_view(digits, static_cast<std::size_t>(end - digits))}).set(next_offset);
}

std::map<std::tuple<std::string, std::string, std::int32_t>, std::int64_t> BrokerMetrics::pulled_offsets() const {
  std::map<std::tuple<std::string, std::string, std::int32_t>, std::int64_t> offsets;
  pulled_.for_each([&](const auto& labels, const metrics::Gauge& offset) {
    std::int32_t queue_id = 0;
    std::from_chars(labels[2].data(), labels[2].data() + labels[2].size(), queue_id);
    offsets[{labels[0], labels[1], queue_id}] = offset.value();
  });
  return offsets;
}

void BrokerMetrics::write(metrics::ExpositionWriter& out) const {
  out.family("rocketmq_messages_in_total", MetricType::kCounter, "Messages stored for producers");
  in_.for_each([&](const auto& labels, const InCell& cell) {
    out.sample({{"topic", labels[0]}, {"message_type", labels[1]}, {"is_system", bool_label(is_system(labels[0]))}},
               cell.messages.value());
  });
  out.family("rocketmq_throughput_in_total", MetricType::kCounter, "Bytes stored for producers (whole records)");
  in_.for_each([&](const auto& labels, const InCell& cell) {
    out.sample({{"topic", labels[0]}, {"message_type", labels[1]}, {"is_system", bool_label(is_system(labels[0]))}},
               cell.bytes.value());
  });
  out.family("rocketmq_message_size", MetricType::kHistogram, "Sizes of the messages stored, in bytes");
  in_.for_each([&](const auto& labels, const InCell& cell) {
    out.histogram({{"topic", labels[0]}, {"message_type", labels[1]}, {"is_system", bool_label(is_system(labels[0]))}},
                  cell.size.snapshot());
  });
  out.family("rocketmq_messages_out_total", MetricType::kCounter, "Messages read by consumers");
  out_.for_each([&](const auto& labels, const OutCell& cell) {
    out.sample({{"topic", labels[0]},
                {"consumer_group", labels[1]},
                {"is_system", bool_label(is_system(labels[0], labels[1]))}},
               cell.messages.value());
  });
  out.family("rocketmq_throughput_out_total", MetricType::kCounter, "Bytes read by consumers (whole records)");
  out_.for_each([&](const auto& labels, const OutCell& cell) {
    out.sample({{"topic", labels[0]},
                {"consumer_group", labels[1]},
                {"is_system", bool_label(is_system(labels[0], labels[1]))}},
               cell.bytes.value());
  });
  out.family("rocketmq_send_to_dlq_messages_total", MetricType::kCounter,
             "Messages moved to their group's dead-letter queue");
  dead_letter_.for_each([&](const auto& labels, const CountCell& cell) {
    out.sample({{"consumer_group", labels[0]},
                {"topic", labels[1]},
                {"is_system", bool_label(is_system(labels[1], labels[0]))}},
               cell.count.value());
  });
  out.family("rocketmq_commit_messages_total", MetricType::kCounter, "Transactions committed by their producers");
  transactions_.for_each([&](const auto& labels, const TransactionCell& cell) {
    out.sample({{"topic", labels[0]}}, cell.committed.value());
  });
  out.family("rocketmq_rollback_messages_total", MetricType::kCounter, "Transactions rolled back by their producers");
  transactions_.for_each([&](const auto& labels, const TransactionCell& cell) {
    out.sample({{"topic", labels[0]}}, cell.rolled_back.value());
  });
  out.family("rocketmq_finish_message_latency", MetricType::kHistogram,
             "Seconds from a half message's birth to its commit");
  transactions_.for_each([&](const auto& labels, const TransactionCell& cell) {
    out.histogram({{"topic", labels[0]}}, cell.commit_latency.snapshot());
  });
  rpc_.write(out);
}

}  // namespace mqkit::broker
