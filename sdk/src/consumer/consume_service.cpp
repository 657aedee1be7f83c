#include "consume_service.hpp"

#include <set>

#include "mqkit/kernel/logging.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/namespace.hpp"
#include "mqkit/protocol/validation.hpp"
#include "outgoing_message.hpp"
#include "queue_broker.hpp"

namespace mqkit::client {

void log_listener_exception(std::string_view group, const MessageQueue& queue, std::string_view what) {
  kernel::logger("client")->warn("{}: the listener threw on {} ({}); the messages will be consumed again", group,
                                 queue.to_string(), what);
}

ConsumeService::ConsumeService(ConsumeEnvironment environment)
    : env_(environment), pool_("consume", static_cast<std::size_t>(env_.config.consume_thread_count)) {}

ConsumeService::~ConsumeService() { shutdown(); }

void ConsumeService::shutdown() {
  stopping_.store(true);
  if (joined_.exchange(true)) return;
  background_.stop();
  pool_.join();
}

Status ConsumeService::send_message_back(const MessageExt& message, const MessageQueue& queue, int delay_level,
                                         int max_reconsume_times) {
  // The application saw the topic without the namespace; the broker knows it with.
  const std::string origin_topic = protocol::wrap_namespace(env_.config.client.name_space, message.topic());
  const Status back = send_back_to_broker(message, queue, origin_topic, delay_level, max_reconsume_times);
  if (back) return back;
  const Status resent = send_to_retry_topic(message, origin_topic, delay_level, max_reconsume_times);
  if (!resent) return Status(back.code(), back.message() + "; as a message to the retry topic: " + resent.message());
  kernel::logger("client")->info("{}: sending {} back to {} failed ({}); sent it to the group's retry topic instead",
                                 env_.config.group, message.msg_id(), queue.broker_name, back.to_string());
  return Status::ok();
}

Status ConsumeService::send_back_to_broker(const MessageExt& message, const MessageQueue& queue,
                                           const std::string& origin_topic, int delay_level, int max_reconsume_times) {
  MQKIT_ASSIGN_OR_RETURN(const std::string address, master_of(env_.instance, queue));
  SendBackRequest request;
  request.commit_log_offset = message.commit_log_offset;
  request.group = env_.config.group;
  request.delay_level = delay_level;
  request.origin_msg_id = message.msg_id();
  request.origin_topic = origin_topic;
  request.max_reconsume_times = max_reconsume_times;
  return env_.instance.api().consumer_send_message_back(address, request);
}

Status ConsumeService::send_to_retry_topic(const MessageExt& message, const std::string& origin_topic, int delay_level,
                                           int max_reconsume_times) {
  namespace property = plugin::v1::property;
  const std::string retry_topic = std::string(protocol::kRetryGroupTopicPrefix) + env_.config.group;
  // The retry topic's writable queues; before any broker has registered it, queue 0 of every
  // master the client knows (a broker creates a group's retry topic on the first send to it).
  std::vector<MessageQueue> targets;
  if (auto route = env_.instance.route(retry_topic)) {
    targets = (*route)->publish.queues;
  } else {
    for (const auto& [name, ids] : env_.instance.broker_addresses()) {
      if (ids.contains(0)) targets.push_back(MessageQueue{retry_topic, name, 0});
    }
  }
  // Its properties, without those this send sets again (a message reconsumed before has them)
  // and those that describe where it was (its old queue's offsets, a half message's flag).
  constexpr std::string_view kReplaced[] = {
      property::kTransactionPrepared, property::kMinOffset,     property::kMaxOffset,        property::kDelayLevel,
      property::kRetryTopic,          property::kReconsumeTime, property::kMaxReconsumeTimes};
  Message::PropertyMap properties = message.properties();
  for (const std::string_view name : kReplaced) {
    if (auto it = properties.find(name); it != properties.end()) properties.erase(it);
  }
  Message retry(retry_topic, message.body());
  retry.set_properties(std::move(properties));
  retry.set_flag(message.flag());
  if (!message.property(property::kOriginMessageId)) {
    retry.set_property(std::string(property::kOriginMessageId), message.msg_id());
  }
  retry.set_property(std::string(property::kRetryTopic), origin_topic);
  // This delivery counts (RECONSUME_TIME = reconsume times + 1, which prepare_message puts in the
  // header too); past the maximum the broker dead-letters it, where a message given up on (delay
  // level -1) is put.
  const int reconsume_times = delay_level < 0 ? max_reconsume_times + 1 : message.reconsume_times + 1;
  retry.set_property(std::string(property::kReconsumeTime), std::to_string(reconsume_times));
  retry.set_property(std::string(property::kMaxReconsumeTimes), std::to_string(max_reconsume_times));
  retry.set_delay_time_level(3 + message.reconsume_times);
  // Prepared as the producer prepares a send (validated, compressed over 4 KiB), under RocketMQ's
  // MixAll.CLIENT_INNER_PRODUCER_GROUP and no namespace: the group's retry topic is named already.
  static const ProducerConfig kInnerProducer = [] {
    ProducerConfig config;
    config.group = "CLIENT_INNER_PRODUCER";
    return config;
  }();
  MQKIT_ASSIGN_OR_RETURN(const PreparedMessage prepared, prepare_message(std::move(retry), kInnerProducer));
  SendMessageRequest request = send_request_for(prepared, kInnerProducer, 0);
  // Each broker of the retry topic once, from its first writable queue, until one stores it.
  Status last = Status::unavailable("no broker with a master serves " + retry_topic);
  std::set<std::string> tried;
  for (const MessageQueue& target : targets) {
    if (!tried.insert(target.broker_name).second) continue;
    const std::string address = env_.instance.find_broker_master(target.broker_name);
    if (address.empty()) continue;
    request.queue_id = target.queue_id;
    auto sent = env_.instance.api().send_message(address, target.broker_name, request);
    if (sent && sent->status == SendStatus::kSendOk) return Status::ok();
    last = sent ? Status::unavailable(target.broker_name + " answered " + std::string(to_string(sent->status)))
                : sent.status();
  }
  return last;
}

}  // namespace mqkit::client
