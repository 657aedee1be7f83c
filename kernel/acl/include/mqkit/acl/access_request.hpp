// What a request asks of the ACL (RocketMQ's PlainAccessResource.parse): who signs it, and which
// permission it needs on which topic or group. Groups are keyed by their retry topic
// (%RETRY%group), as the ACL file's group_perms are:
//
//   SEND_MESSAGE (10), SEND_MESSAGE_V2 (310), SEND_BATCH_MESSAGE (320)
//                          PUB on the topic; SUB when the topic is a %RETRY% topic
//   CONSUMER_SEND_MSG_BACK (36)            SUB on the group
//   PULL_MESSAGE (11), LITE_PULL_MESSAGE (361)  SUB on the topic and on the group
//   QUERY_MESSAGE (12)                     SUB on the topic
//   HEART_BEAT (34)                        SUB on every consumer group and subscribed topic
//   UNREGISTER_CLIENT (35), GET_CONSUMER_LIST_BY_GROUP (38)   SUB on the group
//   UPDATE_CONSUMER_OFFSET (15)            SUB on the group and the topic
//   UPDATE_AND_CREATE_TOPIC (17), UPDATE_BROKER_CONFIG (25), DELETE_TOPIC_IN_BROKER (215),
//   UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200), DELETE_SUBSCRIPTIONGROUP (207)   an admin account
//
// Every other request needs only a valid signature. LITE_PULL_MESSAGE is mqkit's addition
// (RocketMQ 4.x lite pull consumers send PULL_MESSAGE, which it checks).
#pragma once

#include <cstdint>
#include <string_view>

#include "mqkit/acl/access_decision.hpp"
#include "mqkit/plugin/v1/remoting_command.hpp"

namespace mqkit::acl {

// InvalidArgument when the request cannot be read (a heartbeat body that does not decode).
// The returned views live as long as `request`.
plugin::v1::Result<AccessRequest> access_request_of(const plugin::v1::RemotingCommand& request);

// The request codes only an admin account may send (RocketMQ's Permission.ADMIN_CODE).
bool needs_admin(std::int32_t request_code);

// The last client version that signed QUERY_MESSAGE before adding _UNIQUE_KEY_QUERY (V4_9_3):
// a broker leaves that field out of such a request's signed content.
inline constexpr std::int32_t kLastVersionSigningWithoutUniqueKeyFlag = 399;

}  // namespace mqkit::acl
