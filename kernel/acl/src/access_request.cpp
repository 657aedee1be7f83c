#include "mqkit/acl/access_request.hpp"

#include "mqkit/protocol/acl_signature.hpp"
#include "mqkit/protocol/bodies.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/header_fields.hpp"
#include "mqkit/protocol/validation.hpp"

namespace mqkit::acl {

namespace rq = protocol::request_code;
using plugin::v1::Result;
using plugin::v1::Status;

namespace {

bool is_retry_topic(std::string_view topic) { return topic.starts_with(protocol::kRetryGroupTopicPrefix); }

class Needs {
 public:
  Needs(const plugin::v1::ExtFields& fields, AccessRequest& access) : fields_(fields), access_(access) {}

  // A later need for the same resource replaces the earlier one, as RocketMQ's map does. An absent
  // field adds nothing: the request's processor refuses it.
  void topic(std::string_view field, Permission permission) {
    if (auto topic = fields_.get(field)) access_.needed[std::string(*topic)] = permission;
  }
  void group(std::string_view field, Permission permission) {
    if (auto group = fields_.get(field)) access_.needed[protocol::retry_topic(*group)] = permission;
  }
  void sent_to(std::string_view field) {
    if (auto topic = fields_.get(field)) access_.needed[std::string(*topic)] = is_retry_topic(*topic) ? kSub : kPub;
  }

 private:
  const plugin::v1::ExtFields& fields_;
  AccessRequest& access_;
};

}  // namespace

bool needs_admin(std::int32_t request_code) {
  switch (request_code) {
    case rq::kUpdateAndCreateTopic:
    case rq::kUpdateAndCreateTopicList:
    case rq::kUpdateBrokerConfig:
    case rq::kDeleteTopicInBroker:
    case rq::kUpdateAndCreateSubscriptionGroup:
    case rq::kUpdateAndCreateSubscriptionGroupList:
    case rq::kDeleteSubscriptionGroup:
    // RocketMQ lets any signed account change the ACL, or delete files and queues; mqkit asks
    // for an admin.
    case rq::kDeleteExpiredCommitLog:
    case rq::kCleanExpiredConsumeQueue:
    case rq::kCleanUnusedTopic:
    case rq::kUpdateAndCreateAclConfig:
    case rq::kDeleteAclConfig:
    case rq::kUpdateGlobalWhiteAddrsConfig:
      return true;
    default:
      return false;
  }
}

Result<AccessRequest> access_request_of(const plugin::v1::RemotingCommand& request) {
  AccessRequest access;
  const auto& fields = request.ext_fields;
  access.access_key = fields.get(protocol::acl::kAccessKey);
  access.signature = fields.get(protocol::acl::kSignature);
  access.needs_admin = needs_admin(request.code);
  Needs needs(fields, access);
  switch (request.code) {
    case rq::kSendMessage:
    case rq::kRecallMessage:  // cancels a message sent to the topic: a producer's right
      needs.sent_to("topic");
      break;
    case rq::kSendMessageV2:
    case rq::kSendBatchMessage:
      needs.sent_to("b");
      break;
    case rq::kConsumerSendMsgBack:
      needs.group("group", kSub);
      break;
    case rq::kPullMessage:
    case rq::kLitePullMessage:
    case rq::kPopMessage:
    case rq::kAckMessage:
    case rq::kChangeMessageInvisibleTime:
      needs.topic("topic", kSub);
      needs.group("consumerGroup", kSub);
      break;
    case rq::kQueryMessage:
      needs.topic("topic", kSub);
      break;
    case rq::kHeartBeat: {
      auto heartbeat = protocol::decode_heartbeat(protocol::body_text(request));
      if (!heartbeat) return heartbeat.status().with_context("heartbeat body");
      for (const auto& consumer : heartbeat->consumer_data_set) {
        access.needed[protocol::retry_topic(consumer.group_name)] = kSub;
        for (const auto& subscription : consumer.subscription_data_set) access.needed[subscription.topic] = kSub;
      }
      break;
    }
    case rq::kUnregisterClient:
    case rq::kGetConsumerListByGroup:
      needs.group("consumerGroup", kSub);
      break;
    case rq::kUpdateConsumerOffset:
      needs.group("consumerGroup", kSub);
      needs.topic("topic", kSub);
      break;
    default:
      break;
  }
  return access;
}

}  // namespace mqkit::acl
