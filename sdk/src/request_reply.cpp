#include "mqkit/client/request_reply.hpp"

#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/request_reply.hpp"

namespace mqkit::client {

namespace reply = protocol::reply;

namespace {

Status missing(std::string_view property, std::string_view why) {
  return Status::invalid_argument("create reply message fail, requestMessage error, property[" +
                                  std::string(property) + "] is null (" + std::string(why) + ")");
}

}  // namespace

Result<Message> create_reply_message(const MessageExt& request, std::string body) {
  const auto cluster = request.property(plugin::v1::property::kCluster);
  if (!cluster) return missing(plugin::v1::property::kCluster, "the request was not stored by a broker");
  const auto reply_to = request.property(reply::property::kReplyToClient);
  if (!reply_to) return missing(reply::property::kReplyToClient, "the request was not sent by a request call");
  const auto correlation_id = request.property(reply::property::kCorrelationId);
  if (!correlation_id) return missing(reply::property::kCorrelationId, "the request was not sent by a request call");
  Message reply(reply::reply_topic_of(*cluster), std::move(body));
  reply.set_property(std::string(reply::property::kMessageType), std::string(reply::kReplyMessageFlag));
  reply.set_property(std::string(reply::property::kCorrelationId), std::string(*correlation_id));
  reply.set_property(std::string(reply::property::kReplyToClient), std::string(*reply_to));
  if (const auto ttl = request.property(reply::property::kTtl)) {
    reply.set_property(std::string(reply::property::kTtl), std::string(*ttl));
  }
  return reply;
}

}  // namespace mqkit::client
