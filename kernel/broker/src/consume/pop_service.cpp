#include "pop_service.hpp"

#include <algorithm>

#include "../send/append_messages.hpp"
#include "../send/consumer_send_back.hpp"
#include "../send/send_checks.hpp"
#include "message_filter.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/plugin/v1/message_record.hpp"

namespace mqkit::broker {

namespace v1 = plugin::v1;

namespace {

// How many queue entries one pop of a queue looks through for messages its filters select
// (RocketMQ's maxFilterMessageSize), so a filter that selects little holds the lock briefly.
constexpr std::int64_t kMaxExaminedPerPop = 16'000;

// The one record at `offset` of a queue, whatever its tag; nullopt when the queue has none there
// any more (trimmed by retention).
std::optional<v1::StoredSlice> record_at(BrokerContext& context, const std::string& topic, std::int32_t queue_id,
                                         std::int64_t offset) {
  v1::ReadRequest read;
  read.topic = topic;
  read.queue_id = queue_id;
  read.offset = offset;
  read.max_count = 1;
  auto result = context.store->read(read);
  if (!result || result->records.empty() || result->queue_offsets.front() != offset) return std::nullopt;
  return result->records.front();
}

// The first delivery plus the group's retries; in 64 bits, since an admin may set retryMaxTimes
// to any int.
std::int64_t max_deliveries(const PopRequest& request) { return std::int64_t{request.retry_max_times} + 1; }

}  // namespace

v1::Status PopService::load() {
  const std::string file_name(kPopStateFile);
  auto text = files_.load(file_name);
  if (!text) return text.status().with_context("loading " + file_name);
  if (!text->has_value()) return v1::Status::ok();
  auto loaded = decode_pop_state(**text);
  if (!loaded) return v1::Status::corruption(file_name + ": " + loaded.status().message());
  std::size_t deliveries = 0;
  for (auto& [key, ledger] : *loaded) {
    const auto& [group, topic, queue_id] = key;
    // The document and the offsets are saved one after the other, and a crash loses what changed
    // since: the committed offset may have passed deliveries acked after the document was saved.
    if (const auto committed = context_.offsets->query(group, topic, queue_id)) {
      ledger.in_flight.erase(ledger.in_flight.begin(), ledger.in_flight.lower_bound(*committed));
      ledger.next_offset = std::max(ledger.next_offset, *committed);
    }
    deliveries += ledger.in_flight.size();
  }
  kernel::logger("broker")->info("loaded {}: {} pop ledgers, {} deliveries in flight", file_name, loaded->size(), deliveries);
  std::lock_guard lock(mutex_);
  ledgers_ = std::move(*loaded);
  return v1::Status::ok();
}

v1::Status PopService::persist() {
  std::lock_guard persisting(persist_mutex_);
  std::string document;
  std::uint64_t encoded_changes = 0;
  {
    std::lock_guard lock(mutex_);
    if (changes_ == persisted_changes_) return v1::Status::ok();
    document = encode_pop_state(ledgers_);
    encoded_changes = changes_;
  }
  MQKIT_RETURN_IF_ERROR(files_.save(std::string(kPopStateFile), document));
  persisted_changes_ = encoded_changes;
  return v1::Status::ok();
}

PopService::Ledger& PopService::ledger_locked(const Key& key, bool init_from_max) {
  if (auto it = ledgers_.find(key); it != ledgers_.end()) return it->second;
  const auto& [group, topic, queue_id] = key;
  Ledger ledger;
  if (const auto committed = context_.offsets->query(group, topic, queue_id)) {
    ledger.next_offset = *committed;
  } else {
    // A new group starts at the queue's beginning, or with ConsumeInitMode.MAX at its end unless
    // the queue still holds its first message (RocketMQ's initPopOffsetByCheckMsgInMem).
    const std::int64_t min = context_.store->min_offset(topic, queue_id);
    ledger.next_offset = init_from_max && min > 0 ? context_.store->max_offset(topic, queue_id) : min;
  }
  return ledgers_.emplace(key, std::move(ledger)).first->second;
}

void PopService::commit_locked(const Key& key, const Ledger& ledger) {
  const auto& [group, topic, queue_id] = key;
  const std::int64_t lowest_open = ledger.in_flight.empty() ? ledger.next_offset : ledger.in_flight.begin()->first;
  context_.offsets->commit(group, topic, queue_id, lowest_open);
}

std::int32_t PopService::pop_queue_locked(const PopRequest& request, std::int32_t queue_id, std::int32_t room,
                                          std::int64_t now, std::int64_t max_deliveries, PopOutcome& out,
                                          std::vector<DeadLetter>& to_dlq) {
  const Key key{request.group, request.topic, queue_id};
  Ledger& ledger = ledger_locked(key, request.init_from_max);
  const bool waiting_for_acks = std::any_of(ledger.in_flight.begin(), ledger.in_flight.end(),
                                            [now](const auto& entry) { return entry.second.visible_at > now; });
  if (request.order && waiting_for_acks) return 0;
  const std::int64_t next_offset_before = ledger.next_offset;
  const std::size_t in_flight_before = ledger.in_flight.size();
  const std::size_t dead_letters_before = to_dlq.size();
  PoppedQueue popped{.queue_id = queue_id, .start_offset = ledger.next_offset, .offsets = {}};
  std::int32_t added = 0;
  // Deliveries whose invisible time ran out come first, oldest first.
  for (auto it = ledger.in_flight.begin(); it != ledger.in_flight.end() && added < room;) {
    InFlight& entry = it->second;
    if (entry.visible_at > now) {
      ++it;
      continue;
    }
    auto record = record_at(context_, request.topic, queue_id, it->first);
    if (!record) {  // trimmed by retention meanwhile
      it = ledger.in_flight.erase(it);
      continue;
    }
    if (entry.deliveries >= max_deliveries) {
      // Stays in flight, invisible, until the dead letter is stored: a failed append (a full
      // disk) leaves it to be tried again at its next visibility instead of losing it.
      entry.pop_time = now;
      entry.visible_at = now + request.invisible_ms;
      to_dlq.push_back(DeadLetter{.record = std::move(*record), .queue_id = queue_id, .offset = it->first, .pop_time = now});
      ++it;
      continue;
    }
    auto again = v1::with_reconsume_times(record->bytes, entry.deliveries);
    if (!again) {
      kernel::logger("broker")->error("pop of {}:{} offset {} for group {}: {}", request.topic, queue_id, it->first,
                                      request.group, again.status().to_string());
      it = ledger.in_flight.erase(it);
      continue;
    }
    auto bytes = std::make_shared<std::vector<std::uint8_t>>(std::move(again).value());
    out.records.push_back(v1::StoredSlice{.bytes = std::span<const std::uint8_t>(*bytes), .keep_alive = bytes});
    popped.offsets.push_back(it->first);
    entry = InFlight{.pop_time = now, .visible_at = now + request.invisible_ms, .deliveries = v1::next_reconsume_times(entry.deliveries)};
    ++added;
    ++it;
  }
  // In order, new messages wait until every earlier one is acked.
  if (added < room && !(request.order && !ledger.in_flight.empty())) {
    added += pop_new_locked(request, queue_id, room - added, now, ledger, out, popped);
  }
  // Each change above hands a message out, dead-letters one, drops one or moves next_offset; pops
  // that find nothing change nothing, so a broker whose consumers wait does not rewrite the document.
  if (added > 0 || to_dlq.size() != dead_letters_before || ledger.in_flight.size() != in_flight_before ||
      ledger.next_offset != next_offset_before) {
    ++changes_;
  }
  if (added > 0) out.queues.push_back(std::move(popped));
  out.rest += std::max<std::int64_t>(0, context_.store->max_offset(request.topic, queue_id) - ledger.next_offset);
  commit_locked(key, ledger);
  return added;
}

std::int32_t PopService::pop_new_locked(const PopRequest& request, std::int32_t queue_id, std::int32_t room,
                                        std::int64_t now, Ledger& ledger, PopOutcome& out, PoppedQueue& popped) {
  v1::ReadRequest read;
  read.topic = request.topic;
  read.queue_id = queue_id;
  read.max_bytes = context_.config->max_transfer_bytes;
  read.max_count = room;
  read.tag_codes = request.tag_codes;
  std::int64_t examined = 0;
  for (;;) {
    read.offset = ledger.next_offset;
    auto result = context_.store->read(read);
    if (result && read_offset_needs_correction(result->status)) {
      ledger.next_offset = result->next_begin_offset;
      read.offset = ledger.next_offset;
      result = context_.store->read(read);
    }
    if (!result) return 0;
    if (request.sql_filter && result->status == v1::ReadStatus::kFound) {
      keep_selected(*result, *request.sql_filter, request.group, request.topic, queue_id);
    }
    // Past what the filters skipped too: those count as consumed.
    const std::int64_t read_from = ledger.next_offset;
    ledger.next_offset = std::max(ledger.next_offset, result->next_begin_offset);
    for (std::size_t i = 0; i < result->records.size(); ++i) {
      const std::int64_t offset = result->queue_offsets[i];
      ledger.in_flight[offset] = InFlight{.pop_time = now, .visible_at = now + request.invisible_ms, .deliveries = 1};
      out.records.push_back(std::move(result->records[i]));
      popped.offsets.push_back(offset);
    }
    if (!result->records.empty()) return static_cast<std::int32_t>(result->records.size());
    examined += ledger.next_offset - read_from;
    // Nothing selected: read on, or a selected message further in would wait for a long poll
    // that only a new message ends.
    if (result->status != v1::ReadStatus::kNoMatchedMessage || ledger.next_offset == read_from ||
        examined >= kMaxExaminedPerPop) {
      return 0;
    }
  }
}

v1::Result<PopOutcome> PopService::pop(const PopRequest& request) {
  PopOutcome out;
  std::vector<DeadLetter> to_dlq;
  {
    std::lock_guard lock(mutex_);
    const std::int64_t now = context_.clock();
    out.pop_time = now;
    out.invisible_ms = request.invisible_ms;
    std::vector<std::int32_t> queues;
    if (request.queue_id >= 0) {
      queues.push_back(request.queue_id);
    } else if (request.read_queue_nums > 0) {
      const auto start = static_cast<std::int32_t>(rotation_++ % static_cast<std::uint32_t>(request.read_queue_nums));
      for (std::int32_t i = 0; i < request.read_queue_nums; ++i) queues.push_back((start + i) % request.read_queue_nums);
    }
    std::int32_t room = std::max(1, request.max_messages);
    for (const std::int32_t queue_id : queues) {
      if (room <= 0) break;
      room -= pop_queue_locked(request, queue_id, room, now, max_deliveries(request), out, to_dlq);
    }
  }
  for (auto& letter : to_dlq) {
    auto view = v1::decode_record(letter.record.bytes);
    if (!view) continue;
    OutgoingMessage message = retry_copy(StoredRecordAt{.slice = letter.record, .record = *view}, "", 0);
    if (auto refused = move_to_dlq(context_, request.group, message)) {
      kernel::logger("broker")->error("pop: message of {} for group {} past its retries not moved to the DLQ, tried again later: {}",
                                      request.topic, request.group, refused->remark);
      continue;
    }
    kernel::logger("broker")->info("pop: message {}:{} offset {} delivered {} times to group {}: moved to {}",
                                   request.topic, view->queue_id, view->queue_offset, max_deliveries(request),
                                   request.group, message.topic);
    if (context_.metrics) context_.metrics->count_dead_letter(request.group, request.topic);
    // Stored: the delivery ends, as an ack would end it.
    append_message(context_, std::move(message), false,
                   [self = weak_from_this(), group = request.group, topic = request.topic, letter](
                       v1::Result<AppendedMessages> appended) {
                     if (!appended) {
                       kernel::logger("broker")->error("pop: dead letter of group {} not stored, tried again later: {}",
                                                       group, appended.status().to_string());
                       return;
                     }
                     if (const auto service = self.lock()) {
                       service->ack(group, topic, letter.queue_id, letter.offset, letter.pop_time);
                     }
                   });
  }
  return out;
}

std::optional<std::int64_t> PopService::next_visible(const std::string& group, const std::string& topic) const {
  std::lock_guard lock(mutex_);
  const std::int64_t now = context_.clock();
  std::optional<std::int64_t> earliest;
  for (auto it = ledgers_.lower_bound(Key{group, topic, INT32_MIN});
       it != ledgers_.end() && std::get<0>(it->first) == group && std::get<1>(it->first) == topic; ++it) {
    for (const auto& [offset, entry] : it->second.in_flight) {
      // Past ones count not: an orderly queue may hold one back behind a still invisible one.
      if (entry.visible_at > now && (!earliest || entry.visible_at < *earliest)) earliest = entry.visible_at;
    }
  }
  return earliest;
}

void PopService::forget_topic(const std::string& topic) {
  std::lock_guard lock(mutex_);
  if (std::erase_if(ledgers_, [&](const auto& entry) { return std::get<1>(entry.first) == topic; }) > 0) ++changes_;
}

void PopService::forget_group(const std::string& group) {
  std::lock_guard lock(mutex_);
  if (std::erase_if(ledgers_, [&](const auto& entry) { return std::get<0>(entry.first) == group; }) > 0) ++changes_;
}

bool PopService::ack(const std::string& group, const std::string& topic, std::int32_t queue_id, std::int64_t offset,
                     std::int64_t pop_time) {
  std::lock_guard lock(mutex_);
  const Key key{group, topic, queue_id};
  const auto ledger = ledgers_.find(key);
  if (ledger == ledgers_.end()) return false;
  const auto entry = ledger->second.in_flight.find(offset);
  if (entry == ledger->second.in_flight.end() || entry->second.pop_time != pop_time) return false;
  ledger->second.in_flight.erase(entry);
  ++changes_;
  commit_locked(key, ledger->second);
  return true;
}

bool PopService::idle(const std::string& group, const std::string& topic, std::int32_t queue_id) const {
  std::lock_guard lock(mutex_);
  const auto ledger = ledgers_.find(Key{group, topic, queue_id});
  return ledger == ledgers_.end() || ledger->second.in_flight.empty();
}

std::optional<std::int64_t> PopService::change_invisible(const std::string& group, const std::string& topic,
                                                         std::int32_t queue_id, std::int64_t offset,
                                                         std::int64_t pop_time, std::int64_t invisible_ms) {
  std::lock_guard lock(mutex_);
  const auto ledger = ledgers_.find(Key{group, topic, queue_id});
  if (ledger == ledgers_.end()) return std::nullopt;
  const auto entry = ledger->second.in_flight.find(offset);
  if (entry == ledger->second.in_flight.end() || entry->second.pop_time != pop_time) return std::nullopt;
  const std::int64_t now = context_.clock();
  // A new pop time: the old handle no longer names this delivery.
  entry->second.pop_time = now == pop_time ? now + 1 : now;
  entry->second.visible_at = now + invisible_ms;
  ++changes_;
  return entry->second.pop_time;
}

}  // namespace mqkit::broker
