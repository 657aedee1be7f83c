// The one way the send path hands messages to the store: OutgoingMessages become records
// stamped with this broker's store host, in one append (a batch shares topic and queue), and
// the dispatch pipeline is woken so the records become readable soon.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/broker/send/outgoing_message.hpp"

namespace mqkit::broker {

struct AppendedMessages {
  plugin::v1::AppendResult result;
  std::vector<std::int64_t> commit_offsets;  // of each message, in order
};

using AppendedCallback = std::function<void(plugin::v1::Result<AppendedMessages>)>;

// Appends `messages` (non-empty). `done` runs exactly once, on this thread or the store's; the
// messages (and the bodies they keep alive) live until then. Properties longer than 32767
// bytes fail with InvalidArgument and store nothing.
void append_messages(BrokerContext& context, std::vector<OutgoingMessage> messages, bool wait_for_flush,
                     AppendedCallback done);
// The same for messages whose properties are encoded already: `properties[i]` is what
// `messages[i]` stores (their `properties` lists are not read). A batch send builds them so,
// without a list per message.
void append_encoded_messages(BrokerContext& context, std::vector<OutgoingMessage> messages,
                             std::vector<std::string> properties, bool wait_for_flush, AppendedCallback done);
inline void append_message(BrokerContext& context, OutgoingMessage message, bool wait_for_flush,
                           AppendedCallback done) {
  std::vector<OutgoingMessage> messages;
  messages.push_back(std::move(message));
  append_messages(context, std::move(messages), wait_for_flush, std::move(done));
}

}  // namespace mqkit::broker
