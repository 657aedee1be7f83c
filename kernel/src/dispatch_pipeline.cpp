#include "mqkit/kernel/dispatch_pipeline.hpp"

#include <algorithm>
#include <optional>
#include <string_view>

#include "mqkit/kernel/logging.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/plugin/v1/thread_name.hpp"

namespace mqkit::kernel {

using plugin::v1::Result;
using plugin::v1::Status;

DispatchPipeline::DispatchPipeline(std::shared_ptr<plugin::v1::MessageStore> store, DispatchOptions options)
    : store_(std::move(store)), options_(options) {
  tags_code_fn_ = [](const plugin::v1::RecordView&, std::string_view tags) { return plugin::v1::tags_code_of(tags); };
}

DispatchPipeline::~DispatchPipeline() { stop(); }

void DispatchPipeline::add_dispatcher(plugin::v1::Dispatcher* dispatcher) { kernel_dispatchers_.push_back(dispatcher); }

void DispatchPipeline::set_tags_code_fn(TagsCodeFn fn) { tags_code_fn_ = std::move(fn); }

namespace {
// Set while this thread runs dispatchers: an append made from a dispatcher must not dispatch.
thread_local bool t_dispatching = false;
}  // namespace

void DispatchPipeline::start(std::int64_t from_offset) {
  dispatched_.store(from_offset, std::memory_order_release);
  {
    std::lock_guard lock(mutex_);
    stopping_ = false;
  }
  running_.store(true, std::memory_order_release);
  thread_ = std::thread([this] {
    plugin::v1::name_this_thread("ReputMessage");
    run();
  });
}

void DispatchPipeline::stop() {
  running_.store(false, std::memory_order_release);
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  // Waits for a notifying thread's dispatch still under way.
  std::lock_guard dispatching(dispatching_);
}

bool DispatchPipeline::dispatch_on_this_thread() {
  if (t_dispatching || !dispatching_.try_lock()) return false;
  std::lock_guard dispatching(dispatching_, std::adopt_lock);
  // stop() clears running_ before it waits for dispatching_: checked under it, no dispatcher
  // is called after stop() returned.
  if (!running_.load(std::memory_order_acquire)) return false;
  // A little work at most; what is left (a burst, an error to retry) is the reput thread's. The
  // caller is a sender whose answer, and the requests read after it, wait meanwhile: a record
  // can cost a file's creation (a queue's first message), so the bound is on time, not bytes.
  constexpr auto kBudget = std::chrono::microseconds(500);
  const auto deadline = std::chrono::steady_clock::now() + kBudget;
  bool caught_up = false;
  while (!caught_up && std::chrono::steady_clock::now() < deadline) {
    auto advanced = dispatch_once(deadline);
    if (!advanced) break;
    caught_up = *advanced == 0;
  }
  return caught_up;
}

void DispatchPipeline::notify_appended() {
  if (dispatch_on_this_thread()) return;
  // Called after every append: nothing more to do while a wake-up is already pending.
  if (notified_.exchange(true, std::memory_order_acq_rel)) return;
  // Taking the lock orders this notify after the reput thread's predicate check.
  { std::lock_guard lock(mutex_); }
  wake_.notify_one();
}

bool DispatchPipeline::wait_dispatched(std::int64_t offset, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return progressed_.wait_for(lock, timeout, [&] { return dispatched() >= offset; });
}

Status DispatchPipeline::last_error() const {
  std::lock_guard lock(mutex_);
  return last_error_;
}

namespace {

// The properties every dispatch looks at, found in one pass (the first of each, as
// find_property finds it): the reput thread runs this for every record.
struct DispatchedProperties {
  std::optional<std::string_view> keys;
  std::optional<std::string_view> unique_key;
  std::optional<std::string_view> tags;
};

DispatchedProperties dispatched_properties(std::string_view encoded) {
  DispatchedProperties found;
  while (const auto property = plugin::v1::next_property(encoded)) {
    const auto& [name, value] = *property;
    if (!found.keys && name == plugin::v1::property::kKeys) {
      found.keys = value;
    } else if (!found.unique_key && name == plugin::v1::property::kUniqueKey) {
      found.unique_key = value;
    } else if (!found.tags && name == plugin::v1::property::kTags) {
      found.tags = value;
    }
    if (found.keys && found.unique_key && found.tags) break;
  }
  return found;
}

// Calls each dispatcher in turn; the first failure comes back naming its dispatcher (the name is
// only put together then: this runs for every record).
Status run_dispatchers(std::span<plugin::v1::Dispatcher* const> dispatchers, const plugin::v1::DispatchRecord& record) {
  for (plugin::v1::Dispatcher* d : dispatchers) {
    Status status = d->dispatch(record);
    if (!status.is_ok()) return status.with_context("dispatcher " + std::string(d->name()));
  }
  return Status::ok();
}

}  // namespace

Result<std::int64_t> DispatchPipeline::dispatch_once(std::chrono::steady_clock::time_point deadline) {
  // Dispatchers run below: an append they make must not dispatch from within (notify_appended).
  struct DispatchingScope {
    DispatchingScope() { t_dispatching = true; }
    ~DispatchingScope() { t_dispatching = false; }
  } scope;
  const std::int64_t from = dispatched();
  MQKIT_ASSIGN_OR_RETURN(plugin::v1::DispatchChunk chunk, store_->read_for_dispatch(from, options_.max_chunk_bytes));
  // The store may skip end-of-file padding: the chunk then starts past `from`.
  std::int64_t position = chunk.start_offset;
  auto bytes = chunk.bytes.bytes;
  const auto store_dispatchers = store_->dispatchers();
  while (!bytes.empty()) {
    auto record = plugin::v1::decode_record(bytes);
    if (!record) {
      return record.status().with_context("dispatch: undecodable record at commit offset " + std::to_string(position));
    }
    const auto size = static_cast<std::size_t>(record->total_size);
    plugin::v1::DispatchRecord dispatch;
    dispatch.topic = record->topic;
    dispatch.queue_id = record->queue_id;
    dispatch.commit_offset = record->commit_offset;
    dispatch.size = record->total_size;
    dispatch.store_timestamp = record->store_timestamp;
    dispatch.queue_offset = record->queue_offset;
    dispatch.sys_flag = record->sys_flag;
    dispatch.prepared_transaction_offset = record->prepared_transaction_offset;
    dispatch.properties = record->properties;
    const DispatchedProperties found = dispatched_properties(record->properties);
    dispatch.keys = found.keys.value_or("");
    dispatch.unique_key = found.unique_key.value_or("");
    dispatch.tags_code = tags_code_fn_(*record, found.tags.value_or(""));
    dispatch.record = bytes.first(size);
    MQKIT_RETURN_IF_ERROR(run_dispatchers(store_dispatchers, dispatch));
    MQKIT_RETURN_IF_ERROR(run_dispatchers(kernel_dispatchers_, dispatch));
    bytes = bytes.subspan(size);
    position += static_cast<std::int64_t>(size);
    // Publish record by record so readers waiting on an offset see it as soon as it is done.
    dispatched_.store(position, std::memory_order_release);
    if (deadline != kNoDeadline && !bytes.empty() && std::chrono::steady_clock::now() >= deadline) break;
  }
  // The whole chunk, or the record boundary where the deadline stopped it.
  const std::int64_t reached = bytes.empty() ? chunk.next_offset : position;
  dispatched_.store(reached, std::memory_order_release);
  if (reached != from) {
    store_->on_dispatched(reached);
    // Taking the lock orders this wake-up after a waiter's predicate check (no lost wake-up).
    { std::lock_guard lock(mutex_); }
    progressed_.notify_all();
  }
  return reached - from;
}

Status DispatchPipeline::dispatch_until_caught_up() {
  while (true) {
    MQKIT_ASSIGN_OR_RETURN(std::int64_t advanced, dispatch_once());
    if (advanced == 0) return Status::ok();
  }
}

void DispatchPipeline::run() {
  auto log = logger("dispatch");
  const std::chrono::milliseconds longest_idle_wait = std::max(options_.idle_wait, options_.idle_wait_max);
  std::chrono::milliseconds idle_wait = options_.idle_wait;
  while (true) {
    auto advanced = [this] {
      std::lock_guard dispatching(dispatching_);
      return dispatch_once();
    }();
    std::unique_lock lock(mutex_);
    if (stopping_) return;
    if (!advanced) {
      if (last_error_.message() != advanced.status().message()) {
        log->error("{}; retrying in {} ms", advanced.status().to_string(), options_.error_backoff.count());
      }
      last_error_ = advanced.status();
      wake_.wait_for(lock, options_.error_backoff, [&] { return stopping_; });
      continue;
    }
    last_error_ = Status::ok();
    if (*advanced > 0) {
      idle_wait = options_.idle_wait;
      continue;
    }
    wake_.wait_for(lock, idle_wait, [&] { return stopping_ || notified_.load(std::memory_order_acquire); });
    // An exchange, not a store: it reads the last appender's `true` and so synchronizes with it,
    // so the next dispatch_once sees every append whose wake-up was folded into this one.
    const bool notified = notified_.exchange(false, std::memory_order_acq_rel);
    idle_wait = notified ? options_.idle_wait : std::min(idle_wait * 2, longest_idle_wait);
  }
}

}  // namespace mqkit::kernel
