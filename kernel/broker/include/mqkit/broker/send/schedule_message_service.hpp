// ScheduleMessageService: delayed messages by delay level (RocketMQ's ScheduleMessageService,
// rocketmq-facts §5.4). A message with DELAY=n > 0 is stored in SCHEDULE_TOPIC_XXXX queue n-1
// with its real topic and queue in REAL_TOPIC / REAL_QID (park()). A timer thread walks each
// level's queue in order and, once a message's store time plus its level's delay has come,
// appends it again to the real topic and queue. Each level's progress (the next queue offset to
// deliver) is saved in delayOffset.json, so delivery resumes after a restart; a message is
// delivered at least once (a crash between a delivery and the next save repeats it).
//
// Threads: park(), deliver_timestamp() and tags_code_fn() are pure and callable from anywhere
// (the send path's worker threads, the dispatch thread). start()/stop() come from the
// controller's thread; the timer thread alone reads the schedule queues and appends; offsets()
// and encode_offsets() may be called from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/broker/metadata_files.hpp"
#include "mqkit/broker/send/outgoing_message.hpp"
#include "mqkit/broker/send/delivery_support.hpp"
#include "mqkit/kernel/dispatch_pipeline.hpp"
#include "mqkit/plugin/v1/message_record.hpp"

namespace mqkit::broker {

class ScheduleMessageService {
 public:
  static constexpr const char* kOffsetsFile = "delayOffset.json";

  // `context` supplies the config (delay levels), store, dispatch pipeline and clock; `files`
  // holds delayOffset.json. Both must outlive the service.
  ScheduleMessageService(BrokerContext& context, MetadataFiles& files);
  ~ScheduleMessageService();
  ScheduleMessageService(const ScheduleMessageService&) = delete;
  ScheduleMessageService& operator=(const ScheduleMessageService&) = delete;

  // Moves a message carrying DELAY > 0 to the schedule topic: queue level-1, REAL_TOPIC and
  // REAL_QID set, the level clamped to the highest one (and DELAY rewritten to it). Messages of
  // an open or rolled-back transaction are not delayed. Returns whether the message was moved.
  static bool park(const std::vector<std::int64_t>& delay_level_ms, OutgoingMessage& message);
  // When a message of `level` stored at `store_timestamp` is due (RocketMQ adds 1 s for an
  // unknown level).
  static std::int64_t deliver_timestamp(const std::vector<std::int64_t>& delay_level_ms, std::int32_t level,
                                        std::int64_t store_timestamp);
  // For DispatchPipeline::set_tags_code_fn: a schedule-topic entry's tags code is its delivery
  // time, as in RocketMQ's consume queue; every other record keeps the hash of its TAGS.
  static kernel::DispatchPipeline::TagsCodeFn tags_code_fn(std::vector<std::int64_t> delay_level_ms);

  // Loads delayOffset.json (missing = every level from its queue's start) and starts the timer
  // thread. Call after the store has recovered and the dispatch pipeline has started.
  plugin::v1::Status start();
  // Joins the timer thread and saves the offsets. Idempotent.
  void stop();

  // Next queue offset to deliver, per level.
  std::map<std::int32_t, std::int64_t> offsets() const;
  // delayOffset.json: {"offsetTable":{"1":12,"2":0}} (GET_ALL_DELAY_OFFSET answers with it).
  std::string encode_offsets() const;
  // Reads that table, also as RocketMQ writes it (levels as bare numbers: {"offsetTable":{1:12}}).
  static plugin::v1::Result<std::map<std::int32_t, std::int64_t>> decode_offsets(std::string_view json);
  // A slave takes its master's table (RocketMQ's SlaveSynchronize writes it to delayOffset.json):
  // replaces this one and saves it. The slave never delivers; the table is what a broker started
  // from this store as master would resume from.
  plugin::v1::Status replace_offsets(std::map<std::int32_t, std::int64_t> offsets);

 private:
  struct LevelProgress {
    bool more_due = false;      // the tick's budget ran out with due messages left
    std::int64_t next_due = 0;  // delivery time of the first waiting message; 0 = none seen
  };

  void run();
  LevelProgress deliver_level(std::int32_t level);
  // Appends one due message to its real topic; false when it must be tried again later. A
  // message that can never be delivered (no REAL_TOPIC) is dropped and counts as done.
  bool deliver(const plugin::v1::RecordView& record, const plugin::v1::StoredSlice& slice);
  plugin::v1::Status load_offsets();
  void persist_offsets();
  std::int64_t offset_of(std::int32_t level) const;
  void set_offset(std::int32_t level, std::int64_t offset);

  BrokerContext& context_;
  MetadataFiles& files_;
  ServiceThread thread_;
  RepeatedWarning warn_;  // timer thread only

  mutable std::mutex mutex_;
  std::map<std::int32_t, std::int64_t> offsets_;  // guarded by mutex_
  bool dirty_ = false;                            // guarded by mutex_: offsets changed since saved
};

}  // namespace mqkit::broker
