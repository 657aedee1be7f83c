#include "consumer_status.hpp"

#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "mqkit/kernel/logging.hpp"
#include "mqkit/protocol/bodies.hpp"
#include "mqkit/protocol/code_names.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/header_fields.hpp"

namespace mqkit::broker {

namespace {

namespace rc = protocol::response_code;
using QueueOffsets = std::map<plugin::v1::MessageQueue, std::int64_t>;

// The consumers' answers so far; the last one in sends the whole table.
class Gathering {
 public:
  Gathering(Responder responder, std::size_t asked) : responder_(std::move(responder)), waiting_(asked) {}

  void add(const std::string& client_id, std::optional<QueueOffsets> offsets) {
    std::lock_guard lock(mutex_);
    if (offsets) body_.consumer_table[client_id] = std::move(*offsets);
    if (--waiting_ > 0) return;
    RemotingCommand response;
    protocol::set_body(response, protocol::encode(body_));
    responder_.respond(std::move(response));
  }

 private:
  std::mutex mutex_;
  const Responder responder_;
  std::size_t waiting_;
  protocol::GetConsumerStatusBody body_;
};

std::optional<QueueOffsets> offsets_in(const plugin::v1::Result<RemotingCommand>& answer, const std::string& client_id) {
  const auto log = kernel::logger("broker");
  if (!answer) {
    log->warn("[get-consumer-status] consumer {} did not answer: {}", client_id, answer.status().to_string());
    return std::nullopt;
  }
  if (answer->code != rc::kSuccess) return std::nullopt;
  auto body = protocol::decode_get_consumer_status_body(protocol::body_text(*answer));
  if (!body) {
    log->warn("[get-consumer-status] consumer {} answered an unreadable body: {}", client_id, body.status().to_string());
    return std::nullopt;
  }
  return std::move(body->message_queue_table);
}

}  // namespace

void gather_consumer_status(const BrokerContext& context, const ConsumerStatusRequest& request,
                            const Responder& responder) {
  const auto members = context.consumers->find(request.group);
  if (!members || members->connections.empty()) {
    return responder.fail(rc::kSystemError, "No Any Consumer online in the consumer group: [" + request.group + "]");
  }
  std::vector<std::pair<std::string, std::shared_ptr<Channel>>> asked;
  for (const auto& [channel_id, connection] : members->connections) {
    if (connection.version < protocol::version::kV3_0_7_Snapshot) {
      return responder.fail(rc::kSystemError, "the client does not support this feature. version=" +
                                                  std::string(protocol::version_name(connection.version)));
    }
    if (request.client_id.empty() || connection.client_id == request.client_id) {
      asked.emplace_back(connection.client_id, connection.channel);
    }
  }
  kernel::logger("broker")->info("[get-consumer-status] {} asks {} consumers of {} for their offsets of {}",
                                 responder.channel()->remote_address(), asked.size(), request.group, request.topic);
  if (asked.empty()) {
    RemotingCommand response;
    protocol::set_body(response, protocol::encode(protocol::GetConsumerStatusBody{}));
    return responder.respond(std::move(response));
  }
  auto gathering = std::make_shared<Gathering>(responder, asked.size());
  for (auto& [client_id, channel] : asked) {
    auto question = RemotingCommand::request(protocol::request_code::kGetConsumerStatusFromClient);
    question.ext_fields.set("topic", request.topic);
    question.ext_fields.set("group", request.group);
    channel->invoke(std::move(question), kConsumerStatusTimeout,
                    [gathering, client_id](plugin::v1::Result<RemotingCommand> answer) {
                      gathering->add(client_id, offsets_in(answer, client_id));
                    });
  }
}

}  // namespace mqkit::broker
