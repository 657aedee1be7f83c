#include "mqkit/broker/send/schedule_message_service.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <memory>

#include "append_messages.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/bodies.hpp"
#include "mqkit/protocol/transaction.hpp"
#include "mqkit/protocol/validation.hpp"

namespace mqkit::broker {

namespace v1 = plugin::v1;
using v1::Result;
using v1::Status;
using namespace std::chrono_literals;

namespace {

// Work per level per tick: bounded so that one busy level cannot starve the others or stop().
constexpr std::int32_t kMaxDeliveriesPerTick = 32;
constexpr std::int64_t kMaxBytesPerTick = 4 * 1024 * 1024;
// How often a level with nothing due looks again (RocketMQ's DELAY_FOR_A_WHILE).
constexpr auto kPollInterval = 100ms;
constexpr auto kPersistInterval = 1s;
// A store that has not answered an append by then is treated as failed; the message is tried
// again on a later tick (at-least-once).
constexpr auto kAppendTimeout = 10s;
// The group RocketMQ's metrics say reads the schedule topic (MixAll.SCHEDULE_CONSUMER_GROUP).
constexpr std::string_view kScheduleConsumerGroup = "SCHEDULE_CONSUMER";

std::int32_t parse_int32(std::string_view text, bool* ok) {
  std::int32_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  *ok = error == std::errc() && end == text.data() + text.size();
  return value;
}

std::int32_t clamp_level(std::int32_t level, const std::vector<std::int64_t>& delay_level_ms) {
  return std::min(level, static_cast<std::int32_t>(delay_level_ms.size()));
}

}  // namespace

ScheduleMessageService::ScheduleMessageService(BrokerContext& context, MetadataFiles& files)
    : context_(context), files_(files), warn_("schedule") {}

ScheduleMessageService::~ScheduleMessageService() { stop(); }

bool ScheduleMessageService::park(const std::vector<std::int64_t>& delay_level_ms, OutgoingMessage& message) {
  const std::int32_t requested = delay_level_of(message.properties);
  if (requested <= 0 || delay_level_ms.empty()) return false;
  const std::int32_t transaction = message.sys_flag & v1::sys_flag::kTransactionMask;
  if (transaction != 0 && transaction != v1::sys_flag::kTransactionCommit) return false;
  const std::int32_t level = clamp_level(requested, delay_level_ms);
  set_property(message.properties, v1::property::kDelayLevel, std::to_string(level));
  set_property(message.properties, v1::property::kRealTopic, message.topic);
  set_property(message.properties, v1::property::kRealQueueId, std::to_string(message.queue_id));
  message.topic = std::string(protocol::kScheduleTopic);
  message.queue_id = level - 1;
  return true;
}

std::int64_t ScheduleMessageService::deliver_timestamp(const std::vector<std::int64_t>& delay_level_ms,
                                                       std::int32_t level, std::int64_t store_timestamp) {
  if (level >= 1 && static_cast<std::size_t>(level) <= delay_level_ms.size()) {
    return store_timestamp + delay_level_ms[static_cast<std::size_t>(level - 1)];
  }
  return store_timestamp + 1000;
}

kernel::DispatchPipeline::TagsCodeFn ScheduleMessageService::tags_code_fn(std::vector<std::int64_t> delay_level_ms) {
  return [levels = std::move(delay_level_ms)](const v1::RecordView& record, std::string_view tags) -> std::int64_t {
    if (record.topic == protocol::kScheduleTopic) {
      const std::int32_t level = clamp_level(delay_level_of(record.properties), levels);
      if (level > 0) return deliver_timestamp(levels, level, record.store_timestamp);
    }
    return v1::tags_code_of(tags);
  };
}

Status ScheduleMessageService::start() {
  if (thread_.running()) return Status::ok();
  MQKIT_RETURN_IF_ERROR(load_offsets());
  thread_.start("ScheduleMessage", [this] { run(); });
  return Status::ok();
}

void ScheduleMessageService::stop() {
  thread_.stop();
  persist_offsets();
}

std::map<std::int32_t, std::int64_t> ScheduleMessageService::offsets() const {
  std::lock_guard lock(mutex_);
  return offsets_;
}

std::string ScheduleMessageService::encode_offsets() const {
  const auto table = offsets();
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("offsetTable");
  w.StartObject();
  for (const auto& [level, offset] : table) {
    w.Key(std::to_string(level).c_str());
    w.Int64(offset);
  }
  w.EndObject();
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

Result<std::map<std::int32_t, std::int64_t>> ScheduleMessageService::decode_offsets(std::string_view text) {
  const std::string json = protocol::quote_bare_keys(text);
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(json.c_str());
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("offsetTable") || !doc["offsetTable"].IsObject()) {
    return Status::invalid_argument("not a valid delay offset table");
  }
  std::map<std::int32_t, std::int64_t> offsets;
  for (const auto& entry : doc["offsetTable"].GetObject()) {
    bool ok = false;
    const std::int32_t level = parse_int32({entry.name.GetString(), entry.name.GetStringLength()}, &ok);
    if (!ok || !entry.value.IsInt64()) {
      return Status::invalid_argument(std::string("bad delay offset entry for level '") + entry.name.GetString() + "'");
    }
    offsets[level] = entry.value.GetInt64();
  }
  return offsets;
}

Status ScheduleMessageService::replace_offsets(std::map<std::int32_t, std::int64_t> offsets) {
  {
    std::lock_guard lock(mutex_);
    if (offsets == offsets_) return Status::ok();
    offsets_ = std::move(offsets);
  }
  const auto saved = files_.save(kOffsetsFile, encode_offsets());
  if (!saved) {
    std::lock_guard lock(mutex_);
    dirty_ = true;  // saved again at stop
  }
  return saved;
}

Status ScheduleMessageService::load_offsets() {
  auto text = files_.load(kOffsetsFile);
  if (!text) return text.status().with_context(std::string("loading ") + kOffsetsFile);
  std::map<std::int32_t, std::int64_t> loaded;
  if (text->has_value()) {
    auto decoded = decode_offsets(**text);
    if (!decoded) return Status::corruption(std::string(kOffsetsFile) + ": " + decoded.status().message());
    loaded = std::move(*decoded);
  }
  // Messages trimmed from a level's queue while the broker was down cannot be delivered.
  for (auto& [level, offset] : loaded) {
    offset = std::max(offset, context_.store->min_offset(protocol::kScheduleTopic, level - 1));
  }
  std::lock_guard lock(mutex_);
  offsets_ = std::move(loaded);
  return Status::ok();
}

void ScheduleMessageService::persist_offsets() {
  {
    std::lock_guard lock(mutex_);
    if (!dirty_) return;
    dirty_ = false;
  }
  if (auto saved = files_.save(kOffsetsFile, encode_offsets()); !saved) {
    kernel::logger("broker")->warn("saving {}: {}", kOffsetsFile, saved.to_string());
    std::lock_guard lock(mutex_);
    dirty_ = true;  // the next tick tries again
  }
}

std::int64_t ScheduleMessageService::offset_of(std::int32_t level) const {
  std::lock_guard lock(mutex_);
  auto it = offsets_.find(level);
  return it == offsets_.end() ? 0 : it->second;
}

void ScheduleMessageService::set_offset(std::int32_t level, std::int64_t offset) {
  std::lock_guard lock(mutex_);
  offsets_[level] = offset;
  dirty_ = true;
}

void ScheduleMessageService::run() {
  const auto level_count = static_cast<std::int32_t>(context_.config->delay_level_ms.size());
  auto last_persist = std::chrono::steady_clock::now();
  while (!thread_.stopping()) {
    bool more_due = false;
    std::int64_t next_due = 0;
    for (std::int32_t level = 1; level <= level_count && !thread_.stopping(); ++level) {
      const LevelProgress progress = deliver_level(level);
      more_due = more_due || progress.more_due;
      if (progress.next_due != 0 && (next_due == 0 || progress.next_due < next_due)) next_due = progress.next_due;
    }
    if (std::chrono::steady_clock::now() - last_persist >= kPersistInterval) {
      persist_offsets();
      last_persist = std::chrono::steady_clock::now();
    }
    if (more_due) continue;
    // Sleep until the earliest known due time, but look again at least every poll interval:
    // new messages arrive in the queues meanwhile, and the clock may be adjusted.
    auto sleep = std::chrono::duration_cast<std::chrono::milliseconds>(kPollInterval);
    if (next_due != 0) sleep = std::clamp(std::chrono::milliseconds(next_due - broker_clock_ms(context_)), 1ms, sleep);
    thread_.wait_for(sleep);
  }
}

ScheduleMessageService::LevelProgress ScheduleMessageService::deliver_level(std::int32_t level) {
  const std::vector<std::int64_t>& levels = context_.config->delay_level_ms;
  LevelProgress progress;
  const std::int64_t offset = offset_of(level);
  v1::ReadRequest request;
  request.topic = protocol::kScheduleTopic;
  request.queue_id = level - 1;
  request.offset = offset;
  request.max_count = kMaxDeliveriesPerTick;
  request.max_bytes = kMaxBytesPerTick;
  auto read = context_.store->read(request);
  if (!read) {
    warn_("reading delay level " + std::to_string(level) + ": " + read.status().to_string());
    return progress;
  }
  if (read->status != v1::ReadStatus::kFound) {
    if (read_offset_needs_correction(read->status) && read->next_begin_offset != offset) {
      kernel::logger("broker")->warn("delay level {}: offset {} corrected to {}", level, offset,
                                     read->next_begin_offset);
      set_offset(level, read->next_begin_offset);
    }
    return progress;
  }
  const std::int64_t now_ms = broker_clock_ms(context_);
  const std::int64_t level_delay = deliver_timestamp(levels, level, 0);
  for (std::size_t i = 0; i < read->records.size(); ++i) {
    if (thread_.stopping()) return progress;
    const std::int64_t queue_offset = read->queue_offsets[i];
    auto record = v1::decode_record(read->records[i].bytes);
    if (record) {
      std::int64_t due = deliver_timestamp(levels, level, record->store_timestamp);
      // A due time further away than the level's whole delay means the clock went back:
      // RocketMQ delivers such a message now rather than hold it for longer than asked.
      if (due > now_ms + level_delay) due = now_ms;
      if (due > now_ms) {
        progress.next_due = due;
        return progress;
      }
      if (!deliver(*record, read->records[i])) return progress;
    } else {
      kernel::logger("broker")->error("delay level {}: skipping undecodable record at queue offset {}: {}", level,
                                      queue_offset, record.status().to_string());
    }
    set_offset(level, queue_offset + 1);
  }
  // More is due right away only if this read made progress and the queue holds more.
  progress.more_due = !read->records.empty() && read->next_begin_offset < read->max_offset;
  return progress;
}

bool ScheduleMessageService::deliver(const v1::RecordView& record, const v1::StoredSlice& slice) {
  OutgoingMessage m = copy_of(record, slice.keep_alive);
  auto destination = real_destination_of(m.properties);
  // Half messages are never delivered from the schedule topic (RocketMQ drops them).
  if (!destination || destination->topic == protocol::transaction::kHalfTopic) {
    kernel::logger("broker")->error(
        "delayed message at commit offset {} has no deliverable REAL_TOPIC/REAL_QID; dropped",
        record.commit_offset);
    return true;
  }
  m.topic = std::move(destination->topic);
  m.queue_id = destination->queue_id;
  // REAL_TOPIC and REAL_QID stay, as in RocketMQ's delivered messages; DELAY goes so that the
  // message is not delayed again.
  erase_property(m.properties, v1::property::kDelayLevel);
  const std::string topic = m.topic;
  auto appended = append_and_wait(context_, std::move(m), kAppendTimeout);
  if (!appended) {
    warn_("delivering a delayed message to " + topic + ": " + appended.status().to_string());
    return false;
  }
  const std::int64_t bytes = appended->result.bytes;
  context_.stats->count_put(topic, 1, bytes);
  if (context_.metrics) {
    // RocketMQ counts a delivery as read from the schedule topic by SCHEDULE_CONSUMER and stored
    // in the real topic as a delayed message.
    context_.metrics->count_out(protocol::kScheduleTopic, kScheduleConsumerGroup, 1, bytes);
    context_.metrics->count_in(topic, MessageType::kDelay, 1, bytes);
  }
  return true;
}

}  // namespace mqkit::broker
