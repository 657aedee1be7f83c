// The one way the send path hands messages to the store: OutgoingMessages become records
// stamped with this broker's store host, in one append (a batch shares topic and queue), and
// the dispatch pipeline is woken so the records become readable soon. Also how the broker's own
// services read their records back (by commit offset, and walking a system queue).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/broker/ha/replica_acks.hpp"
#include "mqkit/broker/send/outgoing_message.hpp"

namespace mqkit::broker {

struct AppendedMessages {
  plugin::v1::AppendResult result;
  std::vector<std::int64_t> commit_offsets;  // of each message, in order
  // SYNC_MASTER: whether a slave has the records (SLAVE_NOT_AVAILABLE, FLUSH_SLAVE_TIMEOUT).
  ReplicaOutcome replica = ReplicaOutcome::kOk;
};

using AppendedCallback = std::function<void(plugin::v1::Result<AppendedMessages>)>;

// The store's view of `message` stamped with `store_host`; its properties (encoded) are the
// caller's to set.
plugin::v1::MessageToAppend view_of(const OutgoingMessage& message, const plugin::v1::HostAddress& store_host);

// Appends `messages` (non-empty). `done` runs exactly once, on this thread, the store's or the
// replication thread's; the messages (and the bodies they keep alive) live until then. A slave
// stores nothing (Unavailable). On a SYNC_MASTER, when `wait_for_flush`, `done` runs once a slave
// acknowledged the records or the wait failed (RocketMQ's submitReplicaRequest, after the flush). Properties longer than 32767
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

// Appends one message and waits for the store's answer: for the broker's own threads (delayed
// delivery, transaction checks) and END_TRANSACTION, which act on the result. A store that has
// not answered within `timeout` counts as failed (Timeout); the append may still complete.
plugin::v1::Result<AppendedMessages> append_and_wait(BrokerContext& context, OutgoingMessage message,
                                                     std::chrono::milliseconds timeout);

// A whole stored record, decoded, and the bytes it points into.
struct StoredRecordAt {
  plugin::v1::StoredSlice slice;
  plugin::v1::RecordView record;
};
// The record starting at `commit_offset` (send-back, END_TRANSACTION); NotFound when no record
// starts there.
plugin::v1::Result<StoredRecordAt> read_record_at(BrokerContext& context, std::int64_t commit_offset);

// Read statuses after which a service walking a queue must move its offset to where the store
// suggests (RocketMQ's correctDelayOffset): the queue was trimmed under it, or the offset is
// past its end.
bool read_offset_needs_correction(plugin::v1::ReadStatus status);

}  // namespace mqkit::broker
