#include "mqkit/broker/send/transaction_service.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <limits>
#include <memory>
#include <string_view>
#include <tuple>

#include "append_messages.hpp"
#include "mqkit/broker/send/schedule_message_service.hpp"
#include "mqkit/broker/send/timer_message_service.hpp"
#include "send_checks.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/kernel/wall_clock.hpp"
#include "mqkit/plugin/v1/thread_name.hpp"
#include "mqkit/protocol/codes.hpp"

namespace mqkit::broker {

namespace v1 = plugin::v1;
namespace tx = protocol::transaction;
using v1::Status;
using namespace std::chrono_literals;

namespace {

// The half and op queues used: RocketMQ writes every half message to queue 0.
constexpr std::int32_t kHalfQueueId = 0;
// Work per check pass, so that a long backlog cannot hold stop() or starve END_TRANSACTION
// (RocketMQ caps a pass at 60 s); the next pass goes on where this one stopped.
constexpr std::int32_t kMaxRecordsPerPass = 2048;
constexpr auto kMaxPassTime = 10s;
constexpr std::int32_t kRecordsPerRead = 32;
// A store that has not answered an append by then is treated as failed.
constexpr auto kAppendTimeout = 10s;
// How long start() waits for the commit log to be dispatched before it loads the op records.
constexpr auto kDispatchWait = 30s;
// Ended transactions remembered after every copy of them was passed, so that a late repeated
// END_TRANSACTION is still refused (bounds the memory; the oldest are forgotten first).
constexpr std::size_t kRecentlyEndedKept = 65536;

std::shared_ptr<spdlog::logger> log() { return kernel::logger("broker"); }

// The half queue offsets an op record names ("12" or "12,7"; RocketMQ 5 writes "12,").
std::vector<std::int64_t> parse_op_offsets(std::string_view body) {
  std::vector<std::int64_t> offsets;
  while (!body.empty()) {
    const auto separator = body.find(tx::kOpOffsetSeparator);
    const std::string_view item = body.substr(0, separator);
    std::int64_t offset = 0;
    const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), offset);
    if (error == std::errc() && end == item.data() + item.size()) offsets.push_back(offset);
    if (separator == std::string_view::npos) break;
    body.remove_prefix(separator + 1);
  }
  return offsets;
}

// The queue offset of the first half message of `record`'s transaction.
std::int64_t origin_of(const v1::Properties& properties, const v1::RecordView& record) {
  return integer_property(properties, tx::property::kPreparedQueueOffset).value_or(record.queue_offset);
}

// CHECK_TRANSACTION_STATE's body: the half message as a stored record, but with its real topic
// and queue (what RocketMQ's producer sees, as in a pull).
v1::Result<std::vector<std::uint8_t>> check_body(const StoredRecordAt& half, RealDestination destination) {
  OutgoingMessage message = copy_of(half.record, half.slice.keep_alive);
  message.topic = std::move(destination.topic);
  message.queue_id = destination.queue_id;
  message.prepared_transaction_offset = half.record.prepared_transaction_offset;
  v1::MessageToAppend record = view_of(message, half.record.store_host);
  record.properties = half.record.properties;
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(v1::record_size(record)));
  MQKIT_RETURN_IF_ERROR(v1::encode_record(
      record, {half.record.queue_offset, half.record.commit_offset, half.record.store_timestamp}, bytes));
  return bytes;
}

// The half message an END names, checked against the END (topic, producer group, queue offset).
v1::Result<StoredRecordAt> find_half(BrokerContext& context, const tx::EndTransactionHeader& request) {
  auto half = read_record_at(context, request.commit_log_offset);
  if (!half) {
    return Status::not_found("Find prepared transaction message failed: no message at commit log offset " +
                             std::to_string(request.commit_log_offset) + " (" + half.status().message() + ")");
  }
  const v1::RecordView& record = half->record;
  if (record.topic != tx::kHalfTopic) {
    return Status::invalid_argument("the message at commit log offset " + std::to_string(request.commit_log_offset) +
                                    " is not a half message (topic " + std::string(record.topic) + ")");
  }
  const auto group = v1::find_property(record.properties, v1::property::kProducerGroup).value_or("");
  if (group != request.producer_group) {
    return Status::invalid_argument("The producer group wrong: the half message at commit log offset " +
                                    std::to_string(request.commit_log_offset) + " belongs to '" + std::string(group) +
                                    "', not '" + request.producer_group + "'");
  }
  if (record.queue_offset != request.tran_state_table_offset) {
    return Status::invalid_argument("The transaction state table offset wrong: the half message at commit log offset " +
                                    std::to_string(request.commit_log_offset) + " has queue offset " +
                                    std::to_string(record.queue_offset) + ", not " +
                                    std::to_string(request.tran_state_table_offset));
  }
  return half;
}

}  // namespace

TransactionService::TransactionService(BrokerContext& context) : context_(context) {}

TransactionService::~TransactionService() { stop(); }

Status TransactionService::prepare(OutgoingMessage& message) {
  auto topic = context_.topics->ensure(std::string(tx::kHalfTopic), 1, protocol::perm::kRead | protocol::perm::kWrite);
  if (!topic) return topic.status().with_context("creating " + std::string(tx::kHalfTopic));
  if (const auto unique_key = get_property(message.properties, v1::property::kUniqueKey);
      unique_key && !unique_key->empty()) {
    set_property(message.properties, v1::property::kTransactionId, std::string(*unique_key));
  }
  set_property(message.properties, v1::property::kRealTopic, message.topic);
  set_property(message.properties, v1::property::kRealQueueId, std::to_string(message.queue_id));
  // The check bookkeeping is the broker's: a producer's own values would tie its transaction to
  // another one or skip its checks.
  erase_property(message.properties, tx::property::kPreparedQueueOffset);
  erase_property(message.properties, tx::property::kCheckTimes);
  // NOT_TYPE: the store gives it a queue offset like any message; the half topic hides it.
  message.sys_flag &= ~v1::sys_flag::kTransactionMask;
  message.topic = std::string(tx::kHalfTopic);
  message.queue_id = kHalfQueueId;
  return Status::ok();
}

Status TransactionService::end(const tx::EndTransactionHeader& request) {
  using tx::Resolution;
  if (request.resolution == Resolution::kUnknown) return Status::ok();
  if (request.resolution != Resolution::kCommit && request.resolution != Resolution::kRollback) {
    return Status::invalid_argument("commitOrRollback " + std::to_string(static_cast<std::int32_t>(request.resolution)) +
                                    " is none of 0 (unknown), 8 (commit) and 12 (rollback)");
  }
  MQKIT_ASSIGN_OR_RETURN(const StoredRecordAt half, find_half(context_, request));
  const v1::RecordView& record = half.record;
  const std::int64_t origin = origin_of(v1::decode_properties(record.properties), record);
  {
    std::lock_guard lock(mutex_);
    if (is_ended_locked(origin) || ending_.contains(origin)) {
      return Status::already_exists("the transaction of half message " + request.msg_id + " (queue offset " +
                                    std::to_string(record.queue_offset) + ") has already been committed or rolled back");
    }
    ending_.insert(origin);
  }
  Status stored = Status::ok();
  if (request.resolution == Resolution::kCommit) stored = store_commit(record, half.slice);
  std::optional<std::int64_t> op_offset;
  std::vector<std::int64_t> ended_offsets{record.queue_offset};
  if (origin != record.queue_offset) ended_offsets.push_back(origin);
  if (stored) {
    std::string body = std::to_string(record.queue_offset);
    if (origin != record.queue_offset) body += tx::kOpOffsetSeparator + std::to_string(origin);
    auto written = write_op_record(record.queue_id, body);
    if (written) {
      op_offset = *written;
    } else {
      // The transaction is still known ended until this broker stops; after a restart its half
      // message would be checked again.
      log()->error("transaction {}: writing its op record failed: {}", request.msg_id, written.status().to_string());
    }
  }
  if (stored && context_.metrics) {
    const auto topic = v1::find_property(record.properties, v1::property::kRealTopic).value_or("");
    context_.metrics->count_transaction_end(topic, request.resolution == Resolution::kCommit,
                                            now() - record.born_timestamp);
  }
  std::lock_guard lock(mutex_);
  ending_.erase(origin);
  if (!stored) return stored;
  const std::int64_t keep_until = half_end_locked();
  for (const std::int64_t offset : ended_offsets) ended_[offset] = std::max(ended_[offset], keep_until);
  if (op_offset) {
    op_records_[*op_offset] = std::move(ended_offsets);
    op_end_ = std::max(op_end_, *op_offset + 1);
  }
  return Status::ok();
}

Status TransactionService::store_commit(const v1::RecordView& half, const v1::StoredSlice& slice) {
  OutgoingMessage message = copy_of(half, slice.keep_alive);
  auto destination = real_destination_of(message.properties);
  if (!destination) {
    return Status::corruption("the half message at commit log offset " + std::to_string(half.commit_offset) +
                              " has no REAL_TOPIC/REAL_QID");
  }
  message.topic = std::move(destination->topic);
  message.queue_id = destination->queue_id;
  erase_property(message.properties, v1::property::kRealTopic);
  erase_property(message.properties, v1::property::kRealQueueId);
  erase_property(message.properties, v1::property::kTransactionPrepared);
  set_property(message.properties, tx::property::kPreparedQueueOffset, std::to_string(half.queue_offset));
  message.sys_flag = (message.sys_flag & ~v1::sys_flag::kTransactionMask) | v1::sys_flag::kTransactionCommit;
  message.prepared_transaction_offset = half.commit_offset;
  // A committed message with DELAY or a delivery time waits in the schedule or timer topic like
  // any delayed message; a relative delivery time counts from the commit, as in RocketMQ.
  const TimerParking parking = TimerMessageService::park(*context_.config, now(), message);
  if (auto refusal = timer_refusal(parking, *context_.config)) return Status::invalid_argument(refusal->remark);
  ScheduleMessageService::park(context_.config->delay_level_ms, message);
  const std::string topic = message.topic;
  auto appended = append_and_wait(context_, std::move(message), kAppendTimeout);
  if (!appended) return appended.status().with_context("storing the committed message in " + topic);
  context_.stats->count_put(topic, 1, appended->result.bytes);
  return Status::ok();
}

v1::Result<std::int64_t> TransactionService::write_op_record(std::int32_t half_queue_id, const std::string& offsets) {
  auto topic = context_.topics->ensure(std::string(tx::kOpTopic), 1, protocol::perm::kRead | protocol::perm::kWrite);
  if (!topic) return topic.status();
  OutgoingMessage op;
  op.topic = std::string(tx::kOpTopic);
  op.queue_id = half_queue_id;
  op.born_timestamp = now();
  op.born_host = context_.store_host;
  op.properties = {{std::string(v1::property::kTags), std::string(tx::kOpTag)}};
  auto body = std::make_shared<const std::string>(offsets);
  op.body = {std::span(reinterpret_cast<const std::uint8_t*>(body->data()), body->size()), body};
  MQKIT_ASSIGN_OR_RETURN(AppendedMessages appended, append_and_wait(context_, std::move(op), kAppendTimeout));
  return appended.result.queue_offset;
}

bool TransactionService::is_ended_locked(std::int64_t origin) const { return ended_.contains(origin); }

std::int64_t TransactionService::half_end_locked() const {
  return std::max(copies_end_, context_.store->max_offset(tx::kHalfTopic, kHalfQueueId));
}

void TransactionService::start(bool start_check_thread) {
  if (thread_.joinable()) return;
  load_op_records();
  {
    std::lock_guard lock(mutex_);
    stopping_ = false;
  }
  if (start_check_thread) {
    thread_ = std::thread([this] {
      plugin::v1::name_this_thread("TransactionChk");
      run();
    });
  }
}

void TransactionService::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void TransactionService::load_op_records() {
  // After an unclean stop the consume queues are rebuilt in the background: the op queue must be
  // complete before it is read, or an ended transaction would look open.
  if (context_.dispatch != nullptr &&
      !context_.dispatch->wait_dispatched(context_.store->stats().commit_log_max_offset, kDispatchWait)) {
    log()->error("transactions: the commit log was not dispatched within {} s; op records stored since are not loaded",
                 std::chrono::duration_cast<std::chrono::seconds>(kDispatchWait).count());
  }
  const std::string group(tx::kCheckGroup);
  const std::int64_t min_offset = context_.store->min_offset(tx::kOpTopic, kHalfQueueId);
  const std::int64_t op_offset =
      std::max(min_offset, context_.offsets->query(group, std::string(tx::kOpTopic), kHalfQueueId).value_or(min_offset));
  const std::int64_t op_end = context_.store->max_offset(tx::kOpTopic, kHalfQueueId);
  // Transactions ended before the op offset have no half message left to check, but a repeated
  // END of a recent one must still be refused.
  const std::int64_t recent = std::max(min_offset, op_offset - static_cast<std::int64_t>(kRecentlyEndedKept));
  // What ended after it may have copies anywhere in the half queue as it is now.
  const std::int64_t half_end = context_.store->max_offset(tx::kHalfTopic, kHalfQueueId);
  for (const auto& [from, to, keep_until, pending] :
       {std::tuple{recent, op_offset, std::int64_t{0}, false}, std::tuple{op_offset, op_end, half_end, true}}) {
    if (const std::int64_t reached = read_op_records(from, to, keep_until, pending); reached < to) {
      // Not fatal to the broker: what was not read cannot refuse a repeated END.
      log()->error("transactions: reading the op queue stopped at offset {} of {}", reached, to);
    }
  }
  std::lock_guard lock(mutex_);
  op_end_ = op_end;
  log()->info("transactions: op records [{}, {}) loaded, {} of them not passed yet; {} transactions known ended",
              recent, op_end, op_records_.size(), ended_.size());
}

std::int64_t TransactionService::read_op_records(std::int64_t from, std::int64_t to, std::int64_t keep_until,
                                                 bool pending) {
  std::int64_t offset = from;
  while (offset < to) {
    v1::ReadRequest request;
    request.topic = tx::kOpTopic;
    request.queue_id = kHalfQueueId;
    request.offset = offset;
    request.max_count = static_cast<std::int32_t>(std::min<std::int64_t>(kRecordsPerRead, to - offset));
    auto read = context_.store->read(request);
    if (!read) {
      log()->error("transactions: reading op records at {}: {}", offset, read.status().to_string());
      return offset;
    }
    if (read->status != v1::ReadStatus::kFound) {
      if (!read_offset_needs_correction(read->status) || read->next_begin_offset <= offset) return offset;
      offset = read->next_begin_offset;
      continue;
    }
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < read->records.size(); ++i) {
      auto record = v1::decode_record(read->records[i].bytes);
      if (!record) {
        log()->error("transactions: skipping undecodable op record {}: {}", read->queue_offsets[i],
                     record.status().to_string());
        continue;
      }
      const std::string_view body(reinterpret_cast<const char*>(record->body.data()), record->body.size());
      std::vector<std::int64_t> offsets = parse_op_offsets(body);
      for (const std::int64_t ended : offsets) ended_[ended] = std::max(ended_[ended], keep_until);
      if (pending) op_records_[read->queue_offsets[i]] = std::move(offsets);
    }
    offset = read->queue_offsets.back() + 1;
  }
  return offset;
}

std::int64_t TransactionService::now() const {
  if (context_.clock) return context_.clock();
  return kernel::wall_clock_ms();
}

bool TransactionService::stopping() const {
  std::lock_guard lock(mutex_);
  return stopping_;
}

void TransactionService::run() {
  const auto interval = std::chrono::milliseconds(context_.config->transaction_check_interval_ms);
  while (true) {
    {
      std::unique_lock lock(mutex_);
      if (wake_.wait_for(lock, interval, [this] { return stopping_; })) return;
    }
    const CheckPassReport report = check_once();
    if (report.checks_sent > 0 || report.moved_to_check_max > 0) {
      log()->info("transaction check: {} checks sent, {} moved to {}, half offset {}, op offset {}", report.checks_sent,
                  report.moved_to_check_max, tx::kCheckMaxTimeTopic, report.half_offset, report.op_offset);
    }
  }
}

CheckPassReport TransactionService::check_once() {
  CheckPassReport report;
  // Only a master decides: a slave's half queue is a copy of its master's.
  if (context_.config->broker_id != 0) return report;
  // Half messages stored during the pass (its own copies, a producer's new ones) wait for the next.
  const std::int64_t pass_end = context_.store->max_offset(tx::kHalfTopic, kHalfQueueId);
  if (pass_end == 0) return report;  // no transaction yet: nothing to record progress for
  const std::string group(tx::kCheckGroup);
  const std::string half_topic(tx::kHalfTopic);
  const std::int64_t pass_start = now();
  const auto deadline = std::chrono::steady_clock::now() + kMaxPassTime;
  const std::int64_t min_offset = context_.store->min_offset(tx::kHalfTopic, kHalfQueueId);
  const std::int64_t start_offset =
      std::max(min_offset, context_.offsets->query(group, half_topic, kHalfQueueId).value_or(min_offset));
  std::int64_t offset = start_offset;
  std::int32_t budget = kMaxRecordsPerPass;
  bool stop_pass = false;
  while (!stop_pass && offset < pass_end && budget > 0 && !stopping() &&
         std::chrono::steady_clock::now() < deadline) {
    v1::ReadRequest request;
    request.topic = tx::kHalfTopic;
    request.queue_id = kHalfQueueId;
    request.offset = offset;
    request.max_count = static_cast<std::int32_t>(std::min<std::int64_t>({budget, kRecordsPerRead, pass_end - offset}));
    auto read = context_.store->read(request);
    if (!read) {
      log()->warn("transaction check: reading half messages at {}: {}", offset, read.status().to_string());
      break;
    }
    if (read->status != v1::ReadStatus::kFound) {
      if (read_offset_needs_correction(read->status) && read->next_begin_offset != offset) {
        log()->warn("transaction check: half offset {} corrected to {}", offset, read->next_begin_offset);
        offset = read->next_begin_offset;
        continue;
      }
      break;
    }
    for (std::size_t i = 0; i < read->records.size() && !stop_pass; ++i, --budget) {
      auto record = v1::decode_record(read->records[i].bytes);
      if (!record) {
        log()->error("transaction check: skipping undecodable half message at queue offset {}: {}",
                     read->queue_offsets[i], record.status().to_string());
      } else if (examine(*record, read->records[i], pass_start, report) == Step::kStop) {
        stop_pass = true;
        break;
      }
      offset = read->queue_offsets[i] + 1;
    }
  }
  if (offset != start_offset) context_.offsets->commit(group, half_topic, kHalfQueueId, offset);
  report.half_offset = offset;
  report.op_offset = advance_op_offset(offset);
  return report;
}

TransactionService::Step TransactionService::examine(const v1::RecordView& record, const v1::StoredSlice& slice,
                                                     std::int64_t pass_start, CheckPassReport& report) {
  const BrokerConfig& config = *context_.config;
  v1::Properties properties = v1::decode_properties(record.properties);
  const std::int64_t origin = origin_of(properties, record);
  // Held while this half message is decided and, if need be, appended again: an END of the same
  // transaction then comes either before (and is seen here) or after (and sees the copy).
  std::unique_lock lock(mutex_);
  if (is_ended_locked(origin)) {
    ++report.already_ended;
    return Step::kNext;
  }
  // Being ended right now: look again next pass rather than decide on a half-done END.
  if (ending_.contains(origin)) return Step::kStop;
  const std::int64_t checks = integer_property(properties, tx::property::kCheckTimes).value_or(0);
  if (checks >= config.transaction_check_max) {
    lock.unlock();
    if (auto moved = move_to_check_max_topic(record, slice, checks); !moved) {
      log()->warn("transaction check: moving half message {} to {}: {}", record.commit_offset, tx::kCheckMaxTimeTopic,
                  moved.to_string());
      return Step::kStop;
    }
    ++report.moved_to_check_max;
    return Step::kNext;
  }
  const std::int64_t age = pass_start - record.born_timestamp;
  const auto immunity_seconds = integer_property(properties, tx::property::kCheckImmunitySeconds);
  // -1 (or any negative) means the broker's timeout, as in RocketMQ; huge values saturate.
  const std::int64_t wait_ms =
      immunity_seconds && *immunity_seconds >= 0
          ? std::min(*immunity_seconds, std::numeric_limits<std::int64_t>::max() / 1000) * 1000
          : config.transaction_timeout_ms;
  const bool due = age < 0 || age > wait_ms;
  if (!due && !immunity_seconds) return Step::kStop;  // younger messages follow: none is due yet
  OutgoingMessage copy = copy_of(record, slice.keep_alive);
  set_property(copy.properties, tx::property::kPreparedQueueOffset, std::to_string(origin));
  // A message immune from checks for longer than the timeout goes to the back of the queue
  // unchanged, so that it does not hold up the ones behind it (as RocketMQ does).
  if (due) set_property(copy.properties, tx::property::kCheckTimes, std::to_string(checks + 1));
  auto appended = append_and_wait(context_, std::move(copy), kAppendTimeout);
  if (!appended) {
    log()->warn("transaction check: appending half message {} again: {}", record.commit_offset,
                appended.status().to_string());
    return Step::kStop;
  }
  copies_end_ = std::max(copies_end_, appended->result.queue_offset + 1);
  if (!due) return Step::kNext;
  lock.unlock();
  send_check(appended->commit_offsets.front());
  ++report.checks_sent;
  return Step::kNext;
}

void TransactionService::send_check(std::int64_t copy_commit_offset) {
  auto half = read_record_at(context_, copy_commit_offset);
  if (!half) {
    log()->error("transaction check: reading back the half message at {}: {}", copy_commit_offset,
                 half.status().to_string());
    return;
  }
  const v1::RecordView& record = half->record;
  const v1::Properties properties = v1::decode_properties(record.properties);
  const std::string group(get_property(properties, v1::property::kProducerGroup).value_or(""));
  const std::string unique_key(get_property(properties, v1::property::kUniqueKey).value_or(""));
  const auto destination = real_destination_of(properties);
  if (!destination) {
    log()->error("transaction check: half message {} has no REAL_TOPIC/REAL_QID", unique_key);
    return;
  }
  std::shared_ptr<v1::Channel> producer;
  for (const ClientConnection& connection : context_.producers->connections(group)) {
    if (connection.channel && connection.channel->is_open()) {
      producer = connection.channel;
      break;
    }
  }
  if (!producer) {
    log()->warn("transaction check: no live producer of group '{}' to ask about transaction {}", group, unique_key);
    return;
  }
  auto body = check_body(*half, *destination);
  if (!body) {
    log()->error("transaction check: encoding half message {}: {}", unique_key, body.status().to_string());
    return;
  }
  auto request = v1::RemotingCommand::request(protocol::request_code::kCheckTransactionState);
  request.flag = v1::RemotingCommand::kOnewayFlag;
  tx::write(tx::CheckTransactionStateHeader{record.queue_offset, record.commit_offset, unique_key, unique_key,
                                            v1::make_offset_message_id(record.store_host, record.commit_offset)},
            request.ext_fields);
  request.body = std::move(body).value();
  if (auto sent = producer->send(std::move(request)); !sent) {
    log()->warn("transaction check: asking {} about transaction {}: {}", producer->remote_address(), unique_key,
                sent.to_string());
  }
}

Status TransactionService::move_to_check_max_topic(const v1::RecordView& record, const v1::StoredSlice& slice,
                                                   std::int64_t checks) {
  auto topic =
      context_.topics->ensure(std::string(tx::kCheckMaxTimeTopic), 1, protocol::perm::kRead | protocol::perm::kWrite);
  if (!topic) return topic.status();
  OutgoingMessage message = copy_of(record, slice.keep_alive);
  message.topic = std::string(tx::kCheckMaxTimeTopic);
  message.queue_id = 0;
  MQKIT_ASSIGN_OR_RETURN(AppendedMessages appended, append_and_wait(context_, std::move(message), kAppendTimeout));
  log()->error("half message {} of producer group '{}' was checked {} times without an answer; moved to {} (commit "
               "log offset {})",
               v1::find_property(record.properties, v1::property::kUniqueKey).value_or(""),
               v1::find_property(record.properties, v1::property::kProducerGroup).value_or(""), checks,
               tx::kCheckMaxTimeTopic, appended.commit_offsets.front());
  return Status::ok();
}

std::int64_t TransactionService::advance_op_offset(std::int64_t half_offset) {
  const std::string group(tx::kCheckGroup);
  const std::string op_topic(tx::kOpTopic);
  std::lock_guard lock(mutex_);
  // An op record is done once every half offset it names was passed and no copy of its
  // transaction can lie ahead of the half offset any more.
  const auto passed = [&](std::int64_t ended) {
    const auto it = ended_.find(ended);
    return ended < half_offset && (it == ended_.end() || it->second <= half_offset);
  };
  while (!op_records_.empty() && std::ranges::all_of(op_records_.begin()->second, passed)) {
    op_records_.erase(op_records_.begin());
  }
  const std::int64_t op_offset = op_records_.empty() ? op_end_ : op_records_.begin()->first;
  if (context_.offsets->query(group, op_topic, kHalfQueueId) != op_offset) {
    context_.offsets->commit(group, op_topic, kHalfQueueId, op_offset);
  }
  // Forget the oldest transactions no half message can name any more, beyond a recent few.
  for (auto it = ended_.begin(); ended_.size() > kRecentlyEndedKept && it != ended_.end();) {
    it = it->second <= half_offset ? ended_.erase(it) : std::next(it);
  }
  return op_offset;
}

}  // namespace mqkit::broker
