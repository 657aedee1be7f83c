#include "send_request.hpp"

#include <memory>
#include <span>
#include <string>

#include "mqkit/protocol/codes.hpp"

namespace mqkit::broker {

namespace v1 = plugin::v1;
namespace rc = protocol::response_code;

namespace {

// The producer's address as records store it; one that is not ip:port (a test double, a local
// socket) is stored as 0.0.0.0:0.
v1::HostAddress born_host_of(const Channel& channel) {
  auto parsed = v1::parse_host_address(channel.remote_address());
  return parsed ? *parsed : v1::HostAddress{};
}

}  // namespace

OrRefusal<std::pair<SendMessageRequestHeader, SendTarget>> check_send_request(BrokerContext& context,
                                                                              const RemotingCommand& request,
                                                                              const Responder& responder) {
  auto header = parse_send_message_header(request);
  if (!header) return Refusal{rc::kSystemError, header.status().message()};
  if (auto refusal = check_broker_writable(*context.config)) return std::move(*refusal);
  auto target = resolve_send_target(context, *header, responder.channel()->remote_address());
  if (auto* refusal = std::get_if<Refusal>(&target)) return std::move(*refusal);
  return std::pair{std::move(header).value(), std::get<SendTarget>(std::move(target))};
}

OrRefusal<std::pair<SendMessageRequestHeader, SendTarget>> check_single_message_request(BrokerContext& context,
                                                                                        const RemotingCommand& request,
                                                                                        const Responder& responder) {
  auto checked = check_send_request(context, request, responder);
  if (std::holds_alternative<Refusal>(checked)) return checked;
  const SendMessageRequestHeader& header = std::get<0>(checked).first;
  if (auto refusal = check_message_size(*context.config, request.body.size(), header.properties.size())) {
    return std::move(*refusal);
  }
  return checked;
}

OutgoingMessage message_from(const SendMessageRequestHeader& header, const SendTarget& target, const Channel& producer) {
  OutgoingMessage m;
  m.topic = header.topic;
  m.queue_id = target.queue_id;
  m.flag = header.flag;
  m.sys_flag = header.sys_flag;
  if (target.topic.topic_filter_type == "MULTI_TAG") m.sys_flag |= v1::sys_flag::kMultiTags;
  m.born_timestamp = header.born_timestamp;
  m.born_host = born_host_of(producer);
  m.reconsume_times = header.reconsume_times;
  m.properties = v1::decode_properties(header.properties);
  return m;
}

v1::StoredSlice own_body(std::vector<std::uint8_t> body) {
  auto owner = std::make_shared<const std::vector<std::uint8_t>>(std::move(body));
  return {std::span<const std::uint8_t>(*owner), owner};
}

void CountedAs::count(const AppendedMessages& appended) const {
  const auto messages = static_cast<std::int64_t>(appended.commit_offsets.size());
  stats->count_put(topic, messages, appended.result.bytes);
  if (metrics) metrics->count_in(topic, type, messages, appended.result.bytes);
}

CountedAs counted_as(const BrokerContext& context, const std::string& stored_topic,
                     const plugin::v1::Properties& properties) {
  return {context.stats, context.metrics, stored_topic,
          context.metrics ? message_type_of(properties) : MessageType::kNormal};
}

}  // namespace mqkit::broker
