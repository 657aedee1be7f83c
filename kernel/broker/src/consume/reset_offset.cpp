#include "reset_offset.hpp"

#include "mqkit/broker/consume/admin_bodies.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/header_fields.hpp"

namespace mqkit::broker {

QueueOffsets reset_offsets(BrokerContext& context, const protocol::TopicConfig& topic, const ResetRequest& request) {
  QueueOffsets offsets;
  for (std::int32_t queue_id = 0; queue_id < topic.write_queue_nums; ++queue_id) {
    std::int64_t target = 0;
    if (request.timestamp_ms == -1) {
      target = context.store->max_offset(topic.topic_name, queue_id);
    } else {
      target = context.store
                   ->offset_by_time(topic.topic_name, queue_id, request.timestamp_ms, plugin::v1::TimeBoundary::kLower)
                   .value_or(0);
    }
    target = std::max<std::int64_t>(target, 0);
    const auto committed = context.offsets->query(request.group, topic.topic_name, queue_id);
    if (!request.force && committed && *committed >= 0 && *committed < target) target = *committed;
    context.offsets->commit(request.group, topic.topic_name, queue_id, target);
    offsets[{topic.topic_name, context.config->broker_name, queue_id}] = target;
  }
  return offsets;
}

std::size_t notify_consumers_of_reset(const BrokerContext& context, const ResetRequest& request,
                                      const QueueOffsets& offsets) {
  const auto members = context.consumers->find(request.group);
  if (!members) return 0;
  std::size_t sent = 0;
  for (const auto& [id, connection] : members->connections) {
    auto notice = plugin::v1::RemotingCommand::request(protocol::request_code::kResetConsumerClientOffset);
    notice.flag = plugin::v1::RemotingCommand::kOnewayFlag;
    notice.ext_fields.set("topic", request.topic);
    notice.ext_fields.set("group", request.group);
    notice.ext_fields.set("timestamp", request.timestamp_ms);
    notice.ext_fields.set("isForce", request.force);
    protocol::set_body(notice, encode_reset_offset_body(offsets, connection.language));
    if (auto sent_ok = connection.channel->send(std::move(notice)); !sent_ok) {
      kernel::logger("broker")->warn("reset offset notice to {} failed: {}", connection.client_id,
                                     sent_ok.to_string());
      continue;
    }
    ++sent;
  }
  return sent;
}

}  // namespace mqkit::broker
