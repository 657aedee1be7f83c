#include "mqkit/broker/send/timer_message_service.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <limits>
#include <optional>

#include "append_messages.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/protocol/timer.hpp"
#include "mqkit/protocol/validation.hpp"

namespace mqkit::broker {

namespace v1 = plugin::v1;
namespace timer_property = protocol::timer::property;
using v1::Result;
using v1::Status;
using namespace std::chrono_literals;

namespace {

// Timer queue entries read per store read, and reads per tick: bounded so that stop() is heard.
constexpr std::int32_t kEntriesPerRead = 256;
constexpr std::int64_t kBytesPerRead = 4 * 1024 * 1024;
constexpr int kReadsPerTick = 16;
// How often the thread looks for new entries and due ones when nothing is due sooner.
constexpr auto kPollInterval = 100ms;
constexpr auto kPersistInterval = 1s;
// A store that has not answered an append by then is treated as failed; the message is tried
// again on a later tick (at-least-once).
constexpr auto kAppendTimeout = 10s;

// Java's Long.parseLong: an optional sign, then decimal digits.
std::optional<std::int64_t> parse_long(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// The delivery time a producer asked for, read in RocketMQ's order (TIMER_DELAY_SEC, then
// TIMER_DELAY_MS, then TIMER_DELIVER_MS); nullopt when it is not a number.
std::optional<std::int64_t> requested_delivery_ms(const v1::Properties& properties, std::int64_t now_ms) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  if (const auto seconds = get_property(properties, timer_property::kDelaySec)) {
    const auto parsed = parse_long(*seconds);
    if (!parsed || *parsed > (kMax - now_ms) / 1000 || *parsed < -now_ms / 1000) return std::nullopt;
    return now_ms + *parsed * 1000;
  }
  if (const auto millis = get_property(properties, timer_property::kDelayMs)) {
    const auto parsed = parse_long(*millis);
    if (!parsed || *parsed > kMax - now_ms || *parsed < -now_ms) return std::nullopt;
    return now_ms + *parsed;
  }
  return parse_long(get_property(properties, timer_property::kDeliverMs).value_or(""));
}

// Every timer property is named TIMER_...: a message without one (nearly every send) is told
// apart in one pass over its properties.
bool mentions_timer(const v1::Properties& properties) {
  return std::any_of(properties.begin(), properties.end(),
                     [](const auto& property) { return property.first.starts_with("TIMER_"); });
}

bool has_timer_request(const v1::Properties& properties) {
  return get_property(properties, timer_property::kDeliverMs) || get_property(properties, timer_property::kDelaySec) ||
         get_property(properties, timer_property::kDelayMs);
}

}  // namespace

TimerMessageService::TimerMessageService(BrokerContext& context, MetadataFiles& files)
    : context_(context), files_(files), warn_("timer") {}

TimerMessageService::~TimerMessageService() { stop(); }

TimerParking TimerMessageService::park(const BrokerConfig& config, std::int64_t now_ms, OutgoingMessage& message) {
  if (!mentions_timer(message.properties)) return TimerParking::kNotHeld;
  const std::int32_t transaction = message.sys_flag & v1::sys_flag::kTransactionMask;
  if (transaction != 0 && transaction != v1::sys_flag::kTransactionCommit) return TimerParking::kNotHeld;
  if (message.topic == protocol::timer::kTopic) return TimerParking::kNotHeld;
  if (delay_level_of(message.properties) > 0) {
    erase_property(message.properties, timer_property::kDeliverMs);
    erase_property(message.properties, timer_property::kDelaySec);
    erase_property(message.properties, timer_property::kDelayMs);
    return TimerParking::kNotHeld;
  }
  if (get_property(message.properties, timer_property::kOutMs) || !has_timer_request(message.properties)) {
    return TimerParking::kNotHeld;
  }
  if (!config.timer_wheel_enable) return TimerParking::kNotEnabled;
  const auto requested = requested_delivery_ms(message.properties, now_ms);
  if (!requested) return TimerParking::kIllegal;
  std::int64_t deliver_ms = *requested;
  if (deliver_ms <= now_ms) return TimerParking::kNotHeld;
  if (deliver_ms - now_ms > config.timer_max_delay_sec * 1000) return TimerParking::kIllegal;
  const std::int64_t precision = config.timer_precision_ms;
  deliver_ms = deliver_ms % precision == 0 ? deliver_ms - precision : deliver_ms / precision * precision;
  set_property(message.properties, timer_property::kOutMs, std::to_string(deliver_ms));
  set_property(message.properties, v1::property::kRealTopic, message.topic);
  set_property(message.properties, v1::property::kRealQueueId, std::to_string(message.queue_id));
  message.topic = std::string(protocol::timer::kTopic);
  message.queue_id = 0;
  return TimerParking::kHeld;
}

Status TimerMessageService::start() {
  if (thread_.running()) return Status::ok();
  // A slave stores nothing of its own (RocketMQ's slaves do not dequeue timer messages either):
  // its copy of the timer topic waits for its master to deliver.
  if (context_.config->broker_role == BrokerRole::kSlave) return Status::ok();
  MQKIT_RETURN_IF_ERROR(load_checkpoint());
  thread_.start("TimerMessage", [this] { run(); });
  return Status::ok();
}

void TimerMessageService::stop() {
  thread_.stop();
  persist_checkpoint();
}

std::size_t TimerMessageService::pending_count() const {
  std::lock_guard lock(mutex_);
  return pending_.size();
}

TimerCheckpoint TimerMessageService::checkpoint() const {
  std::lock_guard lock(mutex_);
  return checkpoint_;
}

std::string TimerMessageService::encode_checkpoint(const TimerCheckpoint& checkpoint) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("rescanFrom");
  w.Int64(checkpoint.rescan_from);
  w.Key("scannedTo");
  w.Int64(checkpoint.scanned_to);
  w.Key("deliveredThroughMs");
  w.Int64(checkpoint.delivered_through_ms);
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

std::string TimerMessageService::recall_handle(const BrokerConfig& config, const OutgoingMessage& held) {
  const auto real_topic = get_property(held.properties, v1::property::kRealTopic);
  const auto unique_key = get_property(held.properties, v1::property::kUniqueKey);
  const auto out_ms = integer_property(held.properties, timer_property::kOutMs);
  if (!real_topic || !unique_key || !out_ms || real_topic->starts_with(protocol::kRetryGroupTopicPrefix)) return {};
  // One past the slot's time: a marker for it, rounded down like any timer message, lands there.
  return protocol::timer::encode(protocol::timer::RecallHandle{std::string(*real_topic), config.broker_name,
                                                               std::to_string(*out_ms + 1), std::string(*unique_key)});
}

Result<TimerCheckpoint> TimerMessageService::decode_checkpoint(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) return Status::invalid_argument("not a JSON object");
  TimerCheckpoint checkpoint;
  for (const auto& [name, field] : {std::pair{"rescanFrom", &checkpoint.rescan_from},
                                    {"scannedTo", &checkpoint.scanned_to},
                                    {"deliveredThroughMs", &checkpoint.delivered_through_ms}}) {
    if (!doc.HasMember(name) || !doc[name].IsInt64()) {
      return Status::invalid_argument(std::string("no integer \"") + name + "\"");
    }
    *field = doc[name].GetInt64();
  }
  return checkpoint;
}

Status TimerMessageService::load_checkpoint() {
  auto text = files_.load(kCheckpointFile);
  if (!text) return text.status().with_context(std::string("loading ") + kCheckpointFile);
  TimerCheckpoint loaded;
  if (text->has_value()) {
    auto decoded = decode_checkpoint(**text);
    if (!decoded) return Status::corruption(std::string(kCheckpointFile) + ": " + decoded.status().message());
    loaded = *decoded;
  }
  std::lock_guard lock(mutex_);
  restored_ = loaded;
  checkpoint_ = loaded;
  // Entries trimmed from the timer queue while the broker was down cannot be delivered.
  scan_offset_ = std::max(loaded.rescan_from, context_.store->min_offset(protocol::timer::kTopic, 0));
  pending_.clear();
  pending_offsets_.clear();
  by_delete_key_.clear();
  early_markers_.clear();
  return Status::ok();
}

void TimerMessageService::persist_checkpoint() {
  TimerCheckpoint to_save;
  {
    std::lock_guard lock(mutex_);
    if (!dirty_) return;
    dirty_ = false;
    to_save = checkpoint_;
  }
  if (auto saved = files_.save(kCheckpointFile, encode_checkpoint(to_save)); !saved) {
    kernel::logger("broker")->warn("saving {}: {}", kCheckpointFile, saved.to_string());
    std::lock_guard lock(mutex_);
    dirty_ = true;  // the next tick tries again
  }
}

void TimerMessageService::run() {
  auto last_persist = std::chrono::steady_clock::now();
  while (!thread_.stopping()) {
    const bool more_to_read = scan();
    const std::int64_t pass_ms = broker_clock_ms(context_);
    // Everything read so far and due by pass_ms is delivered: that is what a restart may skip. An
    // idle pass leaves the checkpoint as it is (still true), so an idle broker writes nothing.
    if (deliver_due(pass_ms) && progress_unrecorded_) {
      progress_unrecorded_ = false;
      std::lock_guard lock(mutex_);
      TimerCheckpoint reached;
      reached.rescan_from = pending_offsets_.empty() ? scan_offset_ : *pending_offsets_.begin();
      reached.scanned_to = scan_offset_;
      reached.delivered_through_ms = pass_ms;
      if (reached != checkpoint_) {
        checkpoint_ = reached;
        dirty_ = true;
      }
    }
    if (std::chrono::steady_clock::now() - last_persist >= kPersistInterval) {
      persist_checkpoint();
      last_persist = std::chrono::steady_clock::now();
    }
    if (more_to_read) continue;
    // Sleep until the earliest delivery time, but look again at least every poll interval: new
    // entries arrive in the timer queue meanwhile, and the clock may be adjusted.
    auto sleep = std::chrono::duration_cast<std::chrono::milliseconds>(kPollInterval);
    {
      std::lock_guard lock(mutex_);
      if (!pending_.empty()) {
        sleep = std::clamp(std::chrono::milliseconds(pending_.begin()->deliver_ms - broker_clock_ms(context_)), 1ms,
                           sleep);
      }
    }
    thread_.wait_for(sleep);
  }
}

bool TimerMessageService::scan() {
  const auto max_pending = static_cast<std::size_t>(context_.config->timer_max_pending_in_memory);
  for (int reads = 0; reads < kReadsPerTick; ++reads) {
    std::int64_t offset = 0;
    std::size_t room = 0;
    if (thread_.stopping()) return false;
    {
      std::lock_guard lock(mutex_);
      if (pending_.size() >= max_pending) return false;
      offset = scan_offset_;
      room = max_pending - pending_.size();
    }
    v1::ReadRequest request;
    request.topic = protocol::timer::kTopic;
    request.queue_id = 0;
    request.offset = offset;
    request.max_count = static_cast<std::int32_t>(std::min<std::size_t>(kEntriesPerRead, room));
    request.max_bytes = kBytesPerRead;
    auto read = context_.store->read(request);
    if (!read) {
      warn_("reading the timer queue: " + read.status().to_string());
      return false;
    }
    if (read->status != v1::ReadStatus::kFound) {
      if (read_offset_needs_correction(read->status) && read->next_begin_offset != offset) {
        kernel::logger("broker")->warn("timer queue: offset {} corrected to {}", offset, read->next_begin_offset);
        std::lock_guard lock(mutex_);
        scan_offset_ = read->next_begin_offset;
        progress_unrecorded_ = true;
      }
      return false;
    }
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < read->records.size(); ++i) {
      const std::int64_t queue_offset = read->queue_offsets[i];
      scan_offset_ = queue_offset + 1;
      auto record = v1::decode_record(read->records[i].bytes);
      if (!record) {
        kernel::logger("broker")->error("timer queue: skipping undecodable record at queue offset {}: {}",
                                        queue_offset, record.status().to_string());
        continue;
      }
      // An entry without a readable TIMER_OUT_MS was not parked by this broker: due at once.
      const std::int64_t deliver_ms =
          parse_long(v1::find_property(record->properties, timer_property::kOutMs).value_or(""))
              .value_or(record->store_timestamp);
      if (const auto cancelled = v1::find_property(record->properties, timer_property::kDeleteUniqueKey)) {
        cancel(*cancelled, deliver_ms, queue_offset);
        continue;
      }
      if (queue_offset < restored_.scanned_to && deliver_ms <= restored_.delivered_through_ms) continue;
      const auto unique_key = v1::find_property(record->properties, v1::property::kUniqueKey);
      const auto real_topic = v1::find_property(record->properties, v1::property::kRealTopic);
      Pending entry{deliver_ms, queue_offset, record->commit_offset,
                    unique_key && real_topic ? protocol::timer::delete_key(*real_topic, *unique_key) : std::string()};
      if (const auto early = entry.delete_key.empty() ? early_markers_.end() : early_markers_.find(entry.delete_key);
          early != early_markers_.end()) {
        kernel::logger("broker")->info("timer message {} due at {} cancelled by a marker read before it",
                                       entry.delete_key, deliver_ms);
        pending_offsets_.erase(early->second.second);
        early_markers_.erase(early);
        continue;
      }
      if (!entry.delete_key.empty()) by_delete_key_.insert_or_assign(entry.delete_key, std::pair{deliver_ms, queue_offset});
      pending_offsets_.insert(queue_offset);
      pending_.insert(std::move(entry));
    }
    progress_unrecorded_ = true;
    if (read->records.empty() || read->next_begin_offset >= read->max_offset) return false;
  }
  return true;
}

void TimerMessageService::drop_due_markers(std::int64_t now_ms) {
  std::erase_if(early_markers_, [&](const auto& marker) {
    if (marker.second.first > now_ms) return false;
    pending_offsets_.erase(marker.second.second);
    return true;
  });
}

bool TimerMessageService::deliver_due(std::int64_t now_ms) {
  {
    std::lock_guard lock(mutex_);
    if (!early_markers_.empty()) drop_due_markers(now_ms);
  }
  while (true) {
    Pending entry;
    if (thread_.stopping()) return false;
    {
      std::lock_guard lock(mutex_);
      if (pending_.empty() || pending_.begin()->deliver_ms > now_ms) return true;
      entry = *pending_.begin();
    }
    if (!deliver(entry, now_ms)) return false;
    progress_unrecorded_ = true;
    std::lock_guard lock(mutex_);
    forget(entry);
  }
}

void TimerMessageService::forget(const Pending& entry) {
  if (!entry.delete_key.empty()) {
    // A message sent twice under one UNIQ_KEY (a retried send) is indexed twice: keep the other.
    if (const auto it = by_delete_key_.find(entry.delete_key);
        it != by_delete_key_.end() && it->second.second == entry.queue_offset) {
      by_delete_key_.erase(it);
    }
  }
  pending_offsets_.erase(entry.queue_offset);
  pending_.erase(entry);
}

void TimerMessageService::cancel(std::string_view delete_key, std::int64_t marker_due_ms, std::int64_t marker_offset) {
  const auto it = by_delete_key_.find(std::string(delete_key));
  if (it == by_delete_key_.end()) {
    if (delete_key.empty()) return;
    const auto bound = static_cast<std::size_t>(context_.config->timer_max_pending_in_memory);
    if (early_markers_.size() >= bound) {
      kernel::logger("broker")->warn("timer message {}: nothing waiting to cancel, and {} markers wait already",
                                     delete_key, early_markers_.size());
      return;
    }
    kernel::logger("broker")->info("timer message {}: nothing waiting to cancel (delivered already, or not read "
                                   "yet: the marker is kept until it is due at {})",
                                   delete_key, marker_due_ms);
    if (const auto [kept, added] = early_markers_.try_emplace(std::string(delete_key), marker_due_ms, marker_offset); !added) {
      pending_offsets_.erase(kept->second.second);
      kept->second = {marker_due_ms, marker_offset};
    }
    pending_offsets_.insert(marker_offset);
    return;
  }
  // Pending orders by delivery time and queue offset alone: the key finds the entry itself.
  const auto [deliver_ms, queue_offset] = it->second;
  const auto entry = pending_.find(Pending{deliver_ms, queue_offset, 0, {}});
  if (entry == pending_.end()) {
    kernel::logger("broker")->error("timer index out of step: {} is indexed by key but not waiting", delete_key);
    by_delete_key_.erase(it);
    return;
  }
  const Pending found = *entry;  // forget() erases the element the reference would point into
  forget(found);
  kernel::logger("broker")->info("timer message {} due at {} cancelled before its delivery", delete_key, deliver_ms);
}

bool TimerMessageService::deliver(const Pending& entry, std::int64_t now_ms) {
  auto stored = read_record_at(context_, entry.commit_offset);
  if (!stored) {
    if (stored.status().code() != v1::StatusCode::kNotFound) {
      warn_("reading the timer message at commit offset " + std::to_string(entry.commit_offset) + ": " +
           stored.status().to_string());
      return false;
    }
    kernel::logger("broker")->error("timer message at commit offset {} is gone from the store; dropped",
                                    entry.commit_offset);
    return true;
  }
  OutgoingMessage m = copy_of(stored->record, stored->slice.keep_alive);
  auto destination = real_destination_of(m.properties);
  if (!destination) {
    kernel::logger("broker")->error("timer message at commit offset {} has no REAL_TOPIC/REAL_QID; dropped",
                                    entry.commit_offset);
    return true;
  }
  // As RocketMQ's TimerMessageStore delivers: to the real topic and queue, without
  // REAL_TOPIC/REAL_QID, with when it came in and went out; TIMER_OUT_MS stays, so that the copy is
  // never held again.
  m.topic = std::move(destination->topic);
  m.queue_id = destination->queue_id;
  erase_property(m.properties, v1::property::kRealTopic);
  erase_property(m.properties, v1::property::kRealQueueId);
  set_property(m.properties, timer_property::kEnqueueMs, std::to_string(stored->record.store_timestamp));
  set_property(m.properties, timer_property::kDequeueMs, std::to_string(now_ms));
  const std::string topic = m.topic;
  auto appended = append_and_wait(context_, std::move(m), kAppendTimeout);
  if (!appended) {
    warn_("delivering a timer message to " + topic + ": " + appended.status().to_string());
    return false;
  }
  context_.stats->count_put(topic, 1, appended->result.bytes);
  if (context_.metrics) context_.metrics->count_in(topic, MessageType::kDelay, 1, appended->result.bytes);
  return true;
}

}  // namespace mqkit::broker
