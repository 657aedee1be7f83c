#include "running_info.hpp"

#include <chrono>

namespace mqkit::client {

namespace {

constexpr std::size_t kMiB = 1024 * 1024;

std::string ms_text(std::chrono::milliseconds value) { return std::to_string(value.count()); }

}  // namespace

protocol::ConsumerRunningInfo consumer_running_info(const ConsumerConfig& config, std::int64_t start_timestamp_ms,
                                                    const std::map<std::string, SubscriptionData>& subscriptions,
                                                    const std::map<MessageQueue, std::shared_ptr<ProcessQueue>>& queues,
                                                    OffsetStore& offsets) {
  protocol::ConsumerRunningInfo info;
  auto& p = info.properties;
  const ClientConfig& client = config.client;
  std::string namesrv;
  for (const auto& address : client.namesrv_addresses) namesrv += (namesrv.empty() ? "" : ";") + address;
  p["namesrvAddr"] = namesrv;
  p["clientIP"] = client.client_ip;
  p["instanceName"] = client.instance_name;
  p["unitName"] = client.unit_name;
  p["pollNameServerInterval"] = ms_text(client.poll_name_server_interval);
  p["heartbeatBrokerInterval"] = ms_text(client.heartbeat_broker_interval);
  p["persistConsumerOffsetInterval"] = ms_text(client.persist_consumer_offset_interval);
  p["consumerGroup"] = config.group;
  p["messageModel"] = std::string(to_string(config.message_model));
  p["consumeFromWhere"] = std::string(to_string(config.consume_from_where));
  p["consumeTimestamp"] = config.consume_timestamp;
  p["pullBatchSize"] = std::to_string(config.pull_batch_size);
  p["pullThresholdForQueue"] = std::to_string(config.pull_threshold_for_queue);
  p["pullThresholdSizeForQueue"] = std::to_string(config.pull_threshold_size_for_queue / kMiB);
  p[std::string(protocol::ConsumerRunningInfo::kPropConsumerStartTimestamp)] = std::to_string(start_timestamp_ms);

  for (const auto& [topic, subscription] : subscriptions) info.subscription_set.push_back(subscription);
  for (const auto& [queue, process_queue] : queues) {
    protocol::ProcessQueueInfo queue_info = process_queue->info();
    auto committed = offsets.read(queue, ReadOffsetType::kMemory);
    queue_info.commit_offset = committed ? *committed : -1;
    info.mq_table[queue] = queue_info;
  }
  return info;
}

}  // namespace mqkit::client
