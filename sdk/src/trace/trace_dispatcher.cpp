#include "trace_dispatcher.hpp"

#include <exception>

#include "mqkit/kernel/logging.hpp"
#include "mqkit/plugin/v1/thread_name.hpp"

namespace mqkit::client::trace {

namespace {

using Clock = std::chrono::steady_clock;

// A full queue is reported at its first drop and then every this many, so a flood of records
// the trace producer cannot keep up with does not flood the log too.
constexpr std::uint64_t kDropWarningEvery = 1000;

std::shared_ptr<spdlog::logger> log() { return kernel::logger("client"); }

}  // namespace

TraceDispatcher::TraceDispatcher(TraceMessageSink sink, DispatcherLimits limits)
    : sink_(std::move(sink)), limits_(limits), thread_([this] {
        plugin::v1::name_this_thread("TraceDispatch");
        run();
      }) {}

TraceDispatcher::~TraceDispatcher() { shutdown(); }

bool TraceDispatcher::append(TraceContext context) {
  std::unique_lock lock(mutex_);
  if (stopping_) return false;
  if (queue_.size() >= limits_.queue_capacity) {
    const std::uint64_t dropped = ++discarded_;
    lock.unlock();
    if (dropped % kDropWarningEvery == 1) {
      log()->warn("message trace: {} trace records queued (the most), record dropped; {} dropped so far",
                  limits_.queue_capacity, dropped);
    }
    return false;
  }
  const bool was_empty = queue_.empty();
  queue_.push_back(std::move(context));
  lock.unlock();
  // Only the first record wakes the thread: the ones after it are taken in the same pass.
  if (was_empty) wake_.notify_one();
  return true;
}

void TraceDispatcher::shutdown() {
  std::lock_guard join_lock(join_mutex_);
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

std::uint64_t TraceDispatcher::discarded() const {
  std::lock_guard lock(mutex_);
  return discarded_;
}

void TraceDispatcher::run() {
  Pending pending;
  std::unique_lock lock(mutex_);
  for (;;) {
    const auto ready = [this] { return stopping_ || !queue_.empty(); };
    if (pending.body.empty()) {
      wake_.wait(lock, ready);
    } else {
      wake_.wait_until(lock, pending.first_added + limits_.max_delay, ready);
    }
    std::deque<TraceContext> taken;
    taken.swap(queue_);
    const bool stop = stopping_;
    lock.unlock();
    for (const TraceContext& context : taken) add(pending, context);
    if (!pending.body.empty() && (stop || Clock::now() - pending.first_added >= limits_.max_delay)) {
      hand_over(pending);
    }
    if (stop) return;  // append() refuses records once stopping: `taken` held the last ones
    lock.lock();
  }
}

void TraceDispatcher::add(Pending& pending, const TraceContext& context) {
  TraceTransfer transfer = encode_trace_context(context);
  if (transfer.data.empty()) return;
  if (pending.body.empty()) pending.first_added = Clock::now();
  pending.body += transfer.data;
  for (std::string& key : transfer.keys) {
    if (pending.key_set.insert(key).second) pending.keys.push_back(std::move(key));
  }
  if (pending.body.size() >= limits_.batch_bytes) hand_over(pending);
}

void TraceDispatcher::hand_over(Pending& pending) {
  try {
    sink_(std::move(pending.body), std::move(pending.keys));
  } catch (const std::exception& e) {
    log()->warn("message trace: sending a trace message failed: {}", e.what());
  } catch (...) {
    log()->warn("message trace: sending a trace message failed");
  }
  pending = Pending{};
}

}  // namespace mqkit::client::trace
