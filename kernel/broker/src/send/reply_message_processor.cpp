#include "mqkit/broker/send/reply_message_processor.hpp"

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "append_messages.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/kernel/wall_clock.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/request_reply.hpp"
#include "send_request.hpp"
#include "send_response.hpp"

namespace mqkit::broker {

namespace v1 = plugin::v1;
namespace rc = protocol::response_code;
namespace rq = protocol::request_code;
namespace reply = protocol::reply;

namespace {

std::shared_ptr<spdlog::logger> log() { return kernel::logger("broker"); }

struct PushOutcome {
  bool ok = false;
  std::string remark;  // RocketMQ's, when not ok
};

// Java's SocketAddress.toString(), which RocketMQ's reply header carries: "/ip:port".
std::string java_socket_address(std::string_view address) {
  std::string text = "/";
  return text.append(address);
}

// The reply's push, as RocketMQ's pushReplyMessage builds it: the send header's fields, where the
// reply came from and this broker, its properties with PUSH_REPLY_TIME, its body.
RemotingCommand push_command(const SendMessageRequestHeader& header, const OutgoingMessage& message,
                             const Channel& replier, const v1::HostAddress& store_host, std::int64_t now_ms) {
  v1::Properties properties = message.properties;
  set_property(properties, reply::property::kPushReplyTime, std::to_string(now_ms));
  reply::ReplyMessageHeader push;
  push.producer_group = header.producer_group;
  push.topic = header.topic;
  push.default_topic = header.default_topic;
  push.default_topic_queue_nums = header.default_topic_queue_nums;
  push.queue_id = header.queue_id;
  push.sys_flag = header.sys_flag;
  push.born_timestamp = header.born_timestamp;
  push.flag = header.flag;
  push.properties = v1::encode_properties(properties);
  push.reconsume_times = header.reconsume_times;
  push.unit_mode = header.unit_mode;
  push.born_host = java_socket_address(replier.remote_address());
  push.store_host = java_socket_address(v1::to_string(store_host));
  push.store_timestamp = now_ms;
  auto command = RemotingCommand::request(rq::kPushReplyMessageToClient);
  reply::write(push, command.ext_fields);
  command.body_slices.push_back(message.body);  // shared with the append: no copy
  return command;
}

// Joins the push and the append: the last of them to finish answers the responder.
class ReplyAnswer {
 public:
  ReplyAnswer(Responder responder, const BrokerContext& context, std::int32_t queue_id, bool storing, CountedAs counted)
      : responder_(std::move(responder)), store_host_(context.store_host), config_(context.config), counted_(std::move(counted)), queue_id_(queue_id), pending_(storing ? 2 : 1) {}

  void pushed(PushOutcome outcome) {
    std::unique_lock lock(mutex_);
    push_ = std::move(outcome);
    finish_if_last(lock);
  }

  void appended(v1::Result<AppendedMessages> appended) {
    if (appended) {
      counted_.count(*appended);
    } else {
      log()->warn("storing a reply message failed: {}", appended.status().to_string());
    }
    std::unique_lock lock(mutex_);
    stored_ = std::move(appended);
    finish_if_last(lock);
  }

 private:
  void finish_if_last(std::unique_lock<std::mutex>& lock) {
    if (--pending_ > 0) return;
    RemotingCommand response;
    if (stored_ && stored_->is_ok()) {
      response = send_response(*stored_, store_host_, queue_id_, *config_);
    } else {
      // Not stored: zeros the client can still decode (RocketMQ's "0").
      set_send_result_fields(response, "0", queue_id_, 0, *config_);
    }
    response.code = push_->ok ? rc::kSuccess : rc::kSystemError;
    response.remark = push_->ok ? std::nullopt : std::optional<std::string>(push_->remark);
    lock.unlock();
    responder_.respond(std::move(response));
  }

  const Responder responder_;
  const v1::HostAddress store_host_;
  const BrokerConfig* const config_;
  const CountedAs counted_;  // RocketMQ counts a stored reply like a sent message
  const std::int32_t queue_id_;
  std::mutex mutex_;
  int pending_;
  std::optional<PushOutcome> push_;
  std::optional<v1::Result<AppendedMessages>> stored_;
};

// Pushes `command` to the requester `client_id`; `done` gets the outcome exactly once.
void push_reply(const BrokerContext& context, const std::optional<std::string_view>& client_id,
                RemotingCommand command, std::function<void(PushOutcome)> done) {
  if (!client_id) {
    log()->warn("{} is null, can not reply message", reply::property::kReplyToClient);
    return done({false, "reply message properties[" + std::string(reply::property::kReplyToClient) + "] is null"});
  }
  const std::string requester(*client_id);
  const std::shared_ptr<Channel> channel = context.producers->find_channel(requester);
  if (!channel) {
    PushOutcome outcome{false, "push reply message fail, channel of <" + requester + "> not found."};
    log()->warn("{}", outcome.remark);
    return done(std::move(outcome));
  }
  channel->invoke(std::move(command), kCallClientTimeout,
                  [requester, channel, done = std::move(done)](v1::Result<RemotingCommand> answer) {
                    if (answer && answer->code == rc::kSuccess) return done({true, {}});
                    if (answer) {
                      log()->warn("push reply message to <{}> return fail, response remark: {}", requester,
                                  answer->remark.value_or(""));
                    } else {
                      log()->warn("push reply message to <{}> fail. {}: {}", requester, channel->remote_address(),
                                  answer.status().to_string());
                    }
                    // RocketMQ's remark, its missing space included.
                    done({false, "push reply message to " + requester + "fail."});
                  });
}

}  // namespace

std::vector<std::int32_t> ReplyMessageProcessor::codes() const {
  return {rq::kSendReplyMessage, rq::kSendReplyMessageV2};
}

void ReplyMessageProcessor::process(RemotingCommand request, Responder responder) {
  auto checked = check_single_message_request(context_, request, responder);
  if (auto* refusal = std::get_if<Refusal>(&checked)) return refuse(responder, std::move(*refusal));
  const auto& [header, target] = std::get<0>(checked);
  const BrokerConfig& config = *context_.config;
  // Stored as the responder sent it: no CLUSTER, no PUSH_REPLY_TIME (RocketMQ stores the header's
  // properties text).
  OutgoingMessage message = message_from(header, target, *responder.channel());
  message.body = own_body(std::move(request.body));
  const bool storing = config.store_reply_message_enable;
  const std::int64_t now = context_.clock ? context_.clock() : kernel::wall_clock_ms();
  RemotingCommand push = push_command(header, message, *responder.channel(), context_.store_host, now);
  const auto client_id = get_property(message.properties, reply::property::kReplyToClient);
  auto answer = std::make_shared<ReplyAnswer>(responder, context_, target.queue_id, storing,
                                              counted_as(context_, message.topic, message.properties));
  push_reply(context_, client_id, std::move(push), [answer](PushOutcome outcome) { answer->pushed(std::move(outcome)); });
  if (!storing) return;
  // The answer's code comes from the push, so the append need not wait for a flush.
  append_message(context_, std::move(message), /*wait_for_flush=*/false,
                 [answer](v1::Result<AppendedMessages> appended) { answer->appended(std::move(appended)); });
}

}  // namespace mqkit::broker
