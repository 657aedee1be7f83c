// TimerMessageService: RocketMQ 5.x timer messages, delivered at an arbitrary time
// (rocketmq-facts §5.5, docs/timer-messages.md). A send carrying TIMER_DELAY_SEC,
// TIMER_DELAY_MS or TIMER_DELIVER_MS (and no delay level) is stored in rmq_sys_wheel_timer
// queue 0 with the delivery time in TIMER_OUT_MS and its real topic and queue in REAL_TOPIC /
// REAL_QID (park()). A timer thread reads that queue into an in-memory index ordered by
// delivery time and, once a message is due, appends a copy to its real topic and queue.
//
// Unlike RocketMQ's TimerMessageStore (a timing wheel and timer log on disk) the index lives in
// memory only: the timer topic itself is the durable record. The checkpoint (timerCheckpoint.json)
// names the earliest queue offset not yet delivered, and which entries before the read position
// were all delivered by then, so a restart reads the queue again from there and skips what was
// delivered. Delivery is at least once: a crash between a delivery and the next save repeats it.
// A deletion marker in the timer queue (TIMER_DEL_UNIQKEY, written by RECALL_MESSAGE) is never
// delivered: read, it cancels the waiting message of that real topic and UNIQ_KEY.
// At most timer_max_pending_in_memory entries are indexed; past that the thread stops reading
// the queue until deliveries make room, so a message further on is late if it is due sooner than
// the ones indexed.
//
// Threads: park() is pure and callable from anywhere; start()/stop() come from the controller's
// thread; the timer thread alone reads the timer queue and appends; pending_count() and
// checkpoint() may be called from any thread.
#pragma once

#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/broker/metadata_files.hpp"
#include "mqkit/broker/send/outgoing_message.hpp"
#include "mqkit/broker/send/delivery_support.hpp"
#include "mqkit/plugin/v1/message_record.hpp"

namespace mqkit::broker {

// What park() did with a message.
enum class TimerParking {
  kNotHeld,     // no timer message, or one already due: store it as it is
  kHeld,        // moved to the timer topic
  kIllegal,     // unreadable delivery time, or further away than timer_max_delay_sec
  kNotEnabled,  // a timer message while timer_wheel_enable is off
};

// Where the timer thread is: everything it needs to resume after a restart.
struct TimerCheckpoint {
  // The earliest timer queue offset that may not be delivered yet: a restart reads from here.
  std::int64_t rescan_from = 0;
  // Every entry before queue offset `scanned_to` whose delivery time is at most
  // `delivered_through_ms` has been delivered: a restart skips those.
  std::int64_t scanned_to = 0;
  std::int64_t delivered_through_ms = 0;

  bool operator==(const TimerCheckpoint&) const = default;
};

class TimerMessageService {
 public:
  static constexpr const char* kCheckpointFile = "timerCheckpoint.json";

  // `context` supplies the config, store and clock; `files` holds the checkpoint. Both must
  // outlive the service.
  TimerMessageService(BrokerContext& context, MetadataFiles& files);
  ~TimerMessageService();
  TimerMessageService(const TimerMessageService&) = delete;
  TimerMessageService& operator=(const TimerMessageService&) = delete;

  // RocketMQ's handleScheduleMessage for timer messages, at broker time `now_ms`: a message of an
  // open or rolled-back transaction, one already in the timer topic or already stamped with
  // TIMER_OUT_MS is not held; a delay level wins over a delivery time (the timer properties are
  // removed); a delivery time not in the future is stored as it is. Otherwise the delivery time
  // is rounded down to timer_precision_ms (a whole multiple goes one step earlier, as in
  // RocketMQ) and the message moved to the timer topic.
  static TimerParking park(const BrokerConfig& config, std::int64_t now_ms, OutgoingMessage& message);
  // The recall handle of a message park() held (RocketMQ's attachRecallHandle): its real topic,
  // this broker, TIMER_OUT_MS + 1 and its UNIQ_KEY; empty for a message to a retry topic or
  // without UNIQ_KEY.
  static std::string recall_handle(const BrokerConfig& config, const OutgoingMessage& held);

  // Loads the checkpoint (missing = the queue's start) and starts the timer thread; nothing on a
  // slave. Call after the store has recovered and the dispatch pipeline has started.
  plugin::v1::Status start();
  // Joins the timer thread and saves the checkpoint. Idempotent.
  void stop();

  // Timer messages indexed and not delivered yet.
  std::size_t pending_count() const;
  TimerCheckpoint checkpoint() const;
  // timerCheckpoint.json: {"rescanFrom":3,"scannedTo":9,"deliveredThroughMs":1700000000000}.
  static std::string encode_checkpoint(const TimerCheckpoint& checkpoint);
  static plugin::v1::Result<TimerCheckpoint> decode_checkpoint(std::string_view json);

 private:
  struct Pending {
    std::int64_t deliver_ms = 0;
    std::int64_t queue_offset = 0;
    std::int64_t commit_offset = 0;
    std::string delete_key{};  // protocol::timer::delete_key of it; empty without UNIQ_KEY
    auto operator<=>(const Pending& other) const {
      if (auto order = deliver_ms <=> other.deliver_ms; order != 0) return order;
      return queue_offset <=> other.queue_offset;
    }
  };

  void run();
  // Reads new timer queue entries into the index while it has room; whether the read budget of
  // one tick ran out with more to read.
  bool scan();
  // Delivers every indexed entry due by `now_ms`, earliest first; false when one failed (it is
  // tried again on a later tick) or the service is stopping.
  bool deliver_due(std::int64_t now_ms);
  // Appends a copy of the entry's message to its real topic; false when it must be tried again.
  // A message that can never be delivered (gone from the store, no REAL_TOPIC) is dropped.
  bool deliver(const Pending& entry, std::int64_t now_ms);
  // Under mutex_: forgets an indexed entry.
  void forget(const Pending& entry);
  // Under mutex_: a deletion marker read from the timer queue cancels the waiting message it
  // names, if it is still waiting.
  // A marker naming nothing waiting is kept until it is due (`deliver_ms`), in case what it names
  // comes later in the queue (a marker written before its message); its queue offset stays in
  // pending_offsets_ meanwhile, so a restart reads it again.
  void cancel(std::string_view delete_key, std::int64_t marker_due_ms, std::int64_t marker_offset);
  // Forgets the early markers due by `now_ms`. Caller holds mutex_.
  void drop_due_markers(std::int64_t now_ms);
  plugin::v1::Status load_checkpoint();
  void persist_checkpoint();

  BrokerContext& context_;
  MetadataFiles& files_;
  ServiceThread thread_;
  RepeatedWarning warn_;  // timer thread only
  // Timer thread only: entries read or delivered since the checkpoint was last updated.
  bool progress_unrecorded_ = false;

  mutable std::mutex mutex_;
  std::set<Pending> pending_;           // guarded by mutex_: by delivery time
  std::set<std::int64_t> pending_offsets_;  // guarded by mutex_: the same entries' queue offsets
  // guarded by mutex_: the same entries by delete key, as their place in pending_ (deliver_ms,
  // queue_offset), so the key is kept once.
  std::unordered_map<std::string, std::pair<std::int64_t, std::int64_t>> by_delete_key_;
  // guarded by mutex_: deletion markers read before the message they name, by delete key, as
  // (deliver_ms, queue_offset) of the marker.
  std::unordered_map<std::string, std::pair<std::int64_t, std::int64_t>> early_markers_;
  std::int64_t scan_offset_ = 0;        // guarded by mutex_: next timer queue offset to read
  TimerCheckpoint checkpoint_;          // guarded by mutex_: as of the last complete delivery pass
  TimerCheckpoint restored_;            // as loaded at start: what the first reads skip
  bool dirty_ = false;                  // guarded by mutex_: checkpoint changed since saved
};

}  // namespace mqkit::broker
