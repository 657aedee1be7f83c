// RocketMQ 5's topic attributes (TopicAttributes, AttributeUtil): what a topic is configured to
// be beyond its queues, kept in its TopicConfig's `attributes` map. A create or update request
// carries changes as "+key=value,-key" (the `attributes` header of UPDATE_AND_CREATE_TOPIC,
// mqadmin updateTopic -a); stored attributes have no sign.
//
// Supported: `message.type` (UNSPECIFIED, NORMAL, FIFO, DELAY, TRANSACTION, MIXED): the messages
// RocketMQ 5 clients may send to the topic (docs/proxy.md). RocketMQ's `queue.type` and
// `cleanup.policy` name storage features mqkit does not have, so they are refused.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::protocol {

using AttributeMap = std::map<std::string, std::string>;

// "+a=1,-b" → {"+a": "1", "-b": ""}. InvalidArgument naming the item without a sign, or a
// "-" item with a value. Empty text: no change.
plugin::v1::Result<AttributeMap> parse_attribute_changes(std::string_view text);
// The text of `changes`; keys without a sign are additions ("+key=value").
std::string format_attribute_changes(const AttributeMap& changes);
// `current` with `changes` applied (keys without a sign count as additions). A topic being
// created takes additions only. InvalidArgument naming an unsupported key, a value the key does
// not allow, or the removal of a key the topic does not have.
plugin::v1::Result<AttributeMap> alter_topic_attributes(bool create, const AttributeMap& current,
                                                        const AttributeMap& changes);

}  // namespace mqkit::protocol
