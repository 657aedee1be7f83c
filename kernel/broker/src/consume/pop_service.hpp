// PopService: RocketMQ 5's pop consumption, what the broker keeps for it and decides. A pop
// hands a group messages of a topic's queues and makes them invisible to the group's other pops
// for an invisible time; an ack ends a message's delivery; a message not acked in time is
// delivered again, with one more reconsume time, until the group's retry_max_times is exceeded,
// when it goes to %DLQ%group (its delivery ends once the DLQ holds it). A group's committed offset of a queue (the one pull consumers and
// mqadmin see) is the lowest offset not yet acked.
//
// The broker owns one (BrokerContext::pops) and saves it as popState.json (pop_state.hpp; RocketMQ
// writes checkpoints to a revive topic instead) with the consumer offsets, periodically and at
// shutdown, and loads it at start after them. So across a restart an in-flight message stays
// invisible until its time, a receipt handed out before still acks, and deliveries keep counting
// towards the DLQ. What changed after the last save is lost in a crash, never a message: a
// delivery popped since is delivered again, and one acked since is too unless the committed
// offset passed it (at least once, as RocketMQ). docs/proxy.md "Pop consumption" describes it.
//
// Threads: any; one mutex guards all state. Store reads happen under it (they are memory reads
// of the mapped files); appends to the DLQ and saving the document happen outside it.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/broker/metadata_files.hpp"
#include "mqkit/filter/sql_filter.hpp"
#include "mqkit/plugin/v1/buffer.hpp"
#include "pop_state.hpp"

namespace mqkit::broker {

struct PopRequest {
  std::string group{};
  std::string topic{};
  std::int32_t queue_id = -1;  // -1: any readable queue
  std::int32_t max_messages = 32;
  std::int64_t invisible_ms = 60'000;
  bool init_from_max = false;  // a group without an offset starts at the end (RocketMQ's ConsumeInitMode.MAX)
  bool order = false;          // a queue's next messages only once the earlier ones are acked
  std::vector<std::int32_t> tag_codes{};  // tag hash codes accepted; empty = every message
  std::optional<filter::SqlFilter> sql_filter{};  // selects by message properties; none = every message
  std::int32_t read_queue_nums = 0;       // the topic's
  std::int32_t retry_max_times = 16;      // the group's: deliveries beyond 1 + this go to the DLQ
};

struct PoppedQueue {
  std::int32_t queue_id = 0;
  std::int64_t start_offset = 0;  // where this pop began reading the queue
  std::vector<std::int64_t> offsets{};  // the popped messages' queue offsets, in answer order
};

struct PopOutcome {
  std::int64_t pop_time = 0;
  std::int64_t invisible_ms = 0;
  std::vector<plugin::v1::StoredSlice> records{};  // whole stored records, answer order
  std::vector<PoppedQueue> queues{};
  std::int64_t rest = 0;  // messages still waiting in the queues looked at
};

class PopService : public std::enable_shared_from_this<PopService> {
 public:
  PopService(BrokerContext& context, MetadataFiles& files) : context_(context), files_(files) {}

  // Takes back the state popState.json holds (none: nothing popped yet), reconciled with the
  // committed offsets, which must be loaded already: a delivery below its queue's committed offset
  // was acked after the document was saved and is dropped, and a queue's next offset is at least
  // its committed one. A document that does not decode is Corruption naming it.
  plugin::v1::Status load();
  // Saves popState.json when anything changed since the last save.
  plugin::v1::Status persist();

  // Pops what is visible now; never waits. Messages past their retry maximum are moved to the
  // DLQ on the way (they are not returned).
  plugin::v1::Result<PopOutcome> pop(const PopRequest& request);
  // When the earliest message of `group` in `topic` that is invisible now becomes visible again
  // (nullopt: none is).
  std::optional<std::int64_t> next_visible(const std::string& group, const std::string& topic) const;
  // Ends the delivery of the message popped at `pop_time`; false when that delivery is over
  // already (acked, or delivered again since), which changes nothing.
  bool ack(const std::string& group, const std::string& topic, std::int32_t queue_id, std::int64_t offset,
           std::int64_t pop_time);
  // Whether nothing `group` popped of the queue is in flight (acked or given up on).
  bool idle(const std::string& group, const std::string& topic, std::int32_t queue_id) const;
  // Makes the delivery of `pop_time` invisible for `invisible_ms` from now; returns its new pop
  // time, or nullopt when that delivery is over.
  std::optional<std::int64_t> change_invisible(const std::string& group, const std::string& topic, std::int32_t queue_id,
                                               std::int64_t offset, std::int64_t pop_time, std::int64_t invisible_ms);

  // Drops what every group popped of `topic` (deleted: a topic created again under its name starts
  // its queues at offset 0), or what `group` popped of any topic (its offsets cleaned). Their
  // receipts no longer ack anything.
  void forget_topic(const std::string& topic);
  void forget_group(const std::string& group);

 private:
  using InFlight = PopInFlight;
  using Ledger = PopLedger;
  using Key = PopLedgerKey;
  // A message past its retries, on its way to the DLQ (still in flight until stored).
  struct DeadLetter {
    plugin::v1::StoredSlice record;
    std::int32_t queue_id = 0;
    std::int64_t offset = 0;
    std::int64_t pop_time = 0;
  };

  Ledger& ledger_locked(const Key& key, bool init_from_max);
  void commit_locked(const Key& key, const Ledger& ledger);
  // Pops from one queue into `out`; returns how many messages it added.
  std::int32_t pop_queue_locked(const PopRequest& request, std::int32_t queue_id, std::int32_t room,
                                std::int64_t now, std::int64_t max_deliveries, PopOutcome& out,
                                std::vector<DeadLetter>& to_dlq);
  // Pops up to `room` messages never popped before, the ones the request's filters select, into
  // `out` and `popped`; returns how many it added.
  std::int32_t pop_new_locked(const PopRequest& request, std::int32_t queue_id, std::int32_t room, std::int64_t now,
                              Ledger& ledger, PopOutcome& out, PoppedQueue& popped);

  BrokerContext& context_;
  MetadataFiles& files_;
  mutable std::mutex mutex_;
  PopLedgers ledgers_;
  std::uint32_t rotation_ = 0;  // where a pop of any queue starts, so queues take turns
  std::uint64_t changes_ = 0;   // of ledgers_ since the start
  // One save at a time, so that an older document never overwrites a newer one.
  std::mutex persist_mutex_;
  std::uint64_t persisted_changes_ = 0;  // changes_ when the last save was encoded; under persist_mutex_
};

}  // namespace mqkit::broker
