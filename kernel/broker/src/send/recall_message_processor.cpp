#include "mqkit/broker/send/recall_message_processor.hpp"

#include <charconv>

#include "append_messages.hpp"
#include "mqkit/broker/send/timer_message_service.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/timer.hpp"

namespace mqkit::broker {

namespace {

namespace v1 = plugin::v1;
namespace rc = protocol::response_code;
namespace rq = protocol::request_code;
namespace timer = protocol::timer;

// The tag of a deletion marker (RocketMQ's RECALL_MESSAGE_TAG).
constexpr std::string_view kRecallTag = "_RECALL_TAG_";

}  // namespace

std::vector<std::int32_t> RecallMessageProcessor::codes() const { return {rq::kRecallMessage}; }

void RecallMessageProcessor::process(RemotingCommand request, Responder responder) {
  const BrokerConfig& config = *context_.config;
  const auto& fields = request.ext_fields;
  for (const char* required : {"topic", "recallHandle"}) {
    if (!fields.get(required)) return responder.fail(rc::kSystemError, std::string("the custom field <") + required + "> is null");
  }
  const std::string topic(*fields.get("topic"));
  const std::string handle_text(*fields.get("recallHandle"));
  const std::string producer_group(fields.get("producerGroup").value_or(""));
  // RocketMQ's checks and answers, in its order.
  if (!config.recall_message_enable) return responder.fail(rc::kNoPermission, "recall failed, operation is forbidden");
  if (config.is_slave()) return responder.fail(rc::kSlaveNotAvailable, "recall failed, broker service not available");
  if (!protocol::perm::writeable(config.broker_permission) && !config.allow_recall_when_broker_not_writeable) {
    return responder.fail(rc::kServiceNotAvailable, "recall failed, broker service not available");
  }
  if (!context_.topics->find(topic)) {
    return responder.fail(rc::kTopicNotExist, "recall failed, the topic[" + topic + "] not exist");
  }
  auto handle = timer::decode_recall_handle(handle_text);
  if (!handle) return responder.fail(rc::kIllegalOperation, handle.status().message());
  if (handle->topic != topic) return responder.fail(rc::kIllegalOperation, "recall failed, topic not match");
  if (handle->broker_name != config.broker_name) {
    return responder.fail(rc::kIllegalOperation, "recall failed, broker service not available");
  }
  std::int64_t due_ms = -1;
  const auto& when = handle->timestamp;
  if (auto [end, error] = std::from_chars(when.data(), when.data() + when.size(), due_ms);
      error != std::errc() || end != when.data() + when.size()) {
    due_ms = -1;
  }
  const std::int64_t now = context_.clock();
  const std::int64_t time_left = due_ms - now;
  if (due_ms < 0 || time_left <= 0 || time_left >= config.timer_max_delay_sec * 1000) {
    return responder.fail(rc::kIllegalOperation, "recall failed, timestamp invalid");
  }

  // The marker goes where the message waits: a timer message to the same topic, due at the same time.
  OutgoingMessage marker;
  marker.topic = topic;
  marker.queue_id = 0;
  marker.born_timestamp = now;
  if (auto born = v1::parse_host_address(responder.channel()->remote_address())) marker.born_host = *born;
  static constexpr std::uint8_t kBody[] = {'0'};
  marker.body = v1::StoredSlice{std::span<const std::uint8_t>(kBody), nullptr};
  set_property(marker.properties, v1::property::kTags, std::string(kRecallTag));
  set_property(marker.properties, timer::property::kDeleteUniqueKey, timer::delete_key(topic, handle->message_id));
  set_property(marker.properties, v1::property::kUniqueKey, handle->message_id);
  set_property(marker.properties, timer::property::kDeliverMs, when);
  if (!producer_group.empty()) set_property(marker.properties, v1::property::kProducerGroup, producer_group);
  if (TimerMessageService::park(config, now, marker) != TimerParking::kHeld) {
    return responder.fail(rc::kIllegalOperation, "recall failed, timestamp invalid");
  }
  const std::string message_id = handle->message_id;
  append_message(context_, std::move(marker), true,
                 [responder, message_id](v1::Result<AppendedMessages> appended) {
                   if (!appended) return responder.fail(rc::kSystemError, "recall failed, execute error");
                   RemotingCommand response;
                   response.ext_fields.set("msgId", message_id);
                   responder.respond(std::move(response));
                 });
}

}  // namespace mqkit::broker
