// The one way the send path hands messages to the store: OutgoingMessages become records
// stamped with this broker's store host, in one append (a batch shares topic and queue), and
// the dispatch pipeline is woken so the records become readable soon.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
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

// The members of one SEND_BATCH_MESSAGE: each has its own flag, body and encoded properties;
// topic, queue, sys flag, born host and time, reconsume times are the batch's.
struct BatchMembers {
  struct Member {
    std::int32_t flag = 0;
    std::span<const std::uint8_t> body{};
    std::size_t properties_end = 0;  // its properties are properties[previous end, this end)
  };
  std::vector<Member> members;
  std::string properties;  // every member's, back to back
  std::shared_ptr<const void> keep_alive;  // owns the bodies
};

// Appends a batch's members (non-empty) as append_messages appends messages: `common` gives
// what they share (its body and properties are not read).
void append_batch(BrokerContext& context, OutgoingMessage common, BatchMembers batch, bool wait_for_flush,
                  AppendedCallback done);

inline void append_message(BrokerContext& context, OutgoingMessage message, bool wait_for_flush,
                           AppendedCallback done) {
  std::vector<OutgoingMessage> messages;
  messages.push_back(std::move(message));
  append_messages(context, std::move(messages), wait_for_flush, std::move(done));
}

}  // namespace mqkit::broker
