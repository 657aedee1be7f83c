#include "reply_receiver.hpp"

#include "mqkit/client/compression.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/kernel/wall_clock.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/request_reply.hpp"

namespace mqkit::client {

namespace v1 = plugin::v1;
namespace rc = protocol::response_code;
namespace reply = protocol::reply;

namespace {

std::shared_ptr<spdlog::logger> log() { return kernel::logger("client"); }

std::string body_of(const v1::RemotingCommand& command) {
  std::string body(command.body.begin(), command.body.end());
  for (const auto& slice : command.body_slices) body.append(slice.bytes.begin(), slice.bytes.end());
  return body;
}

}  // namespace

Result<MessageExt> reply_from_push(const v1::RemotingCommand& push, std::int64_t arrived_ms) {
  MQKIT_ASSIGN_OR_RETURN(const reply::ReplyMessageHeader header, reply::read_reply_message_header(push.ext_fields));
  MessageExt m;
  m.set_topic(header.topic);
  m.queue_id = header.queue_id;
  m.store_timestamp = header.store_timestamp;
  m.born_host = std::string(reply::host_address_of(header.born_host));
  m.store_host = std::string(reply::host_address_of(header.store_host));
  m.sys_flag = header.sys_flag;
  std::string body = body_of(push);
  if (is_zlib_compressed(header.sys_flag)) {
    auto inflated = zlib_uncompress({reinterpret_cast<const std::uint8_t*>(body.data()), body.size()});
    if (inflated) {
      body = std::move(inflated).value();
      m.sys_flag = without_compression(m.sys_flag);
    } else {
      // As RocketMQ: the reply is delivered with the body as it came.
      log()->warn("a reply message's body says COMPRESSED but does not inflate: {}", inflated.status().to_string());
    }
  }
  m.set_body(std::move(body));
  m.set_flag(header.flag);
  m.set_properties(decode_property_map(header.properties));
  m.set_property(std::string(reply::property::kReplyArriveTime), std::to_string(arrived_ms));
  m.born_timestamp = header.born_timestamp;
  m.reconsume_times = header.reconsume_times.value_or(0);
  return m;
}

RequestProcessor reply_receiver(std::shared_ptr<PendingRequests> pending, std::string client_id) {
  return [pending = std::move(pending), client_id = std::move(client_id)](
             const std::shared_ptr<v1::Channel>& channel, v1::RemotingCommand push) {
    auto reply = reply_from_push(push, kernel::wall_clock_ms());
    v1::RemotingCommand response;
    if (!reply) {
      log()->warn("{}: a reply message pushed by {} cannot be read: {}", client_id, channel->remote_address(),
                  reply.status().to_string());
      response = v1::RemotingCommand::response_to(push, rc::kSystemError, "process reply message fail");
    } else {
      const std::string correlation_id(reply->property(reply::property::kCorrelationId).value_or(""));
      const std::string born_host = reply->born_host;
      if (!pending->complete(correlation_id, std::move(reply).value())) {
        log()->warn("{}: receive reply message, but not matched any request, CorrelationId: {} , reply from host: {}",
                    client_id, correlation_id, born_host);
      }
      response = v1::RemotingCommand::response_to(push, rc::kSuccess);
    }
    if (push.is_oneway()) return;
    if (Status sent = channel->send(std::move(response)); !sent) {
      log()->warn("{}: answering a reply push from {}: {}", client_id, channel->remote_address(), sent.to_string());
    }
  };
}

}  // namespace mqkit::client
