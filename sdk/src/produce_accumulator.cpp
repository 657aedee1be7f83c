#include "produce_accumulator.hpp"

#include <algorithm>
#include <limits>
#include <string_view>

#include "client_threads.hpp"

namespace mqkit::client {

namespace {

// Inside MessageSender::send_async on this thread: an answer that arrives synchronously (a
// request that failed before it went out) must not send the queue's next batch from within,
// or a run of failing batches would nest one call per batch.
thread_local int t_sending = 0;

std::vector<std::string_view> split_ids(std::string_view joined) {
  std::vector<std::string_view> ids;
  while (!joined.empty()) {
    const auto comma = joined.find(',');
    ids.push_back(joined.substr(0, comma));
    if (comma == std::string_view::npos) break;
    joined.remove_prefix(comma + 1);
  }
  return ids;
}

}  // namespace

ProduceAccumulator::ProduceAccumulator(MessageSender& sender, ClientInstance& instance, SendWindow& window,
                                       const ProducerConfig& config)
    : sender_(sender),
      instance_(instance),
      window_(window),
      max_delay_(config.batch_max_delay),
      batch_max_bytes_(config.batch_max_bytes),
      total_max_bytes_(config.total_batch_max_bytes) {
  if (max_delay_.count() > 0) timer_thread_ = std::thread([this] {
      mark_client_thread("AutoBatchTimer");
      run_timer();
    });
}

ProduceAccumulator::~ProduceAccumulator() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  timer_.notify_all();
  if (timer_thread_.joinable()) timer_thread_.join();
}

bool ProduceAccumulator::should_hold(const Waiting& waiting) const {
  return max_delay_.count() > 0 && !flushed_ && waiting.bytes < batch_max_bytes_;
}

Status ProduceAccumulator::add(std::shared_ptr<const PreparedMessage> message, const SendTarget& target,
                               Clock::time_point started, Clock::time_point deadline, SendCallback done,
                               std::size_t window_bytes) {
  MQKIT_ASSIGN_OR_RETURN(const MessageSender::PickedQueue picked, sender_.pick_queue(*message, target));
  const MessageQueue& queue = *picked.queue;
  Item item{std::move(message), std::move(done), started, deadline, target.queue || target.selector, 0, window_bytes};
  item.bytes = batch_item_size(*item.message);
  Batch batch;
  {
    std::unique_lock lock(mutex_);
    // A message larger than the whole budget still fits an empty accumulator.
    const auto fits = [&] { return total_bytes_ == 0 || total_bytes_ + item.bytes <= total_max_bytes_; };
    if (!fits() && !room_.wait_until(lock, deadline, fits)) {
      return Status::resource_exhausted("auto batching: " + std::to_string(total_bytes_) +
                                        " bytes wait for their batch (total_batch_max_bytes " +
                                        std::to_string(total_max_bytes_) + "); no room before the send timeout");
    }
    Waiting& waiting = queues_[queue];
    total_bytes_ += item.bytes;
    waiting.bytes += item.bytes;
    waiting.items.push_back(std::move(item));
    if (waiting.in_flight) return Status::ok();  // goes with the answer
    if (should_hold(waiting)) {
      if (!waiting.held) {
        waiting.held = true;
        waiting.hold_until = Clock::now() + max_delay_;
        timer_.notify_one();
      }
      return Status::ok();
    }
    batch = take_batch(queue, waiting, Clock::now());
  }
  send(std::move(batch));
  return Status::ok();
}

ProduceAccumulator::Batch ProduceAccumulator::take_batch(const MessageQueue& queue, Waiting& waiting,
                                                         Clock::time_point now) {
  Batch batch;
  batch.queue = queue;
  std::size_t bytes = 0;
  while (!waiting.items.empty()) {
    Item& next = waiting.items.front();
    const bool expired = next.deadline <= now;
    if (!expired && !batch.items.empty() &&
        (bytes + next.bytes > batch_max_bytes_ || next.fixed_queue != batch.items.front().fixed_queue)) {
      break;
    }
    waiting.bytes -= next.bytes;
    total_bytes_ -= next.bytes;
    if (expired) {
      batch.expired.push_back(std::move(next));
    } else {
      bytes += next.bytes;
      batch.items.push_back(std::move(next));
    }
    waiting.items.pop_front();
  }
  waiting.held = false;
  waiting.in_flight = !batch.items.empty();
  room_.notify_all();
  return batch;
}

void ProduceAccumulator::send(Batch batch) {
  fail(batch.expired, Status::timeout("the message waited for its auto batch past its send timeout"), window_);
  if (batch.items.empty()) return;
  auto started = batch.items.front().started;
  auto deadline = batch.items.front().deadline;
  for (const Item& item : batch.items) {
    started = std::min(started, item.started);
    deadline = std::min(deadline, item.deadline);
  }
  SendTarget target;
  if (batch.items.front().fixed_queue) {
    target.queue = batch.queue;
  } else {
    target.first_queue = batch.queue;
  }
  std::shared_ptr<const PreparedMessage> message;
  if (batch.items.size() == 1) {
    message = batch.items.front().message;  // as sent without auto batching
  } else {
    std::vector<std::shared_ptr<const PreparedMessage>> parts;
    parts.reserve(batch.items.size());
    for (const Item& item : batch.items) parts.push_back(item.message);
    message = std::make_shared<const PreparedMessage>(join_batch(parts));
  }
  auto items = std::make_shared<std::vector<Item>>(std::move(batch.items));
  ++t_sending;
  sender_.send_async(std::move(message), std::move(target), started, deadline,
                     [this, queue = std::move(batch.queue), items, &window = window_](Result<SendResult> result) {
                       answered(queue);
                       // Nothing touches the accumulator from here: once these callbacks ran
                       // and their room is released, the producer may be shut down and this
                       // destroyed.
                       deliver(*items, result, window);
                     });
  --t_sending;
}

void ProduceAccumulator::answered(const MessageQueue& queue) {
  Batch next;
  {
    std::lock_guard lock(mutex_);
    Waiting& waiting = queues_[queue];
    waiting.in_flight = false;
    // What waited behind the answer goes now, whatever batch_max_delay says: it has waited.
    if (waiting.items.empty()) return;
    next = take_batch(queue, waiting, Clock::now());
  }
  if (t_sending == 0) return send(std::move(next));
  auto shared = std::make_shared<Batch>(std::move(next));
  if (instance_.execute([this, shared] { send(std::move(*shared)); })) return;
  // The client is shutting down: nothing more of this queue can go out.
  {
    std::lock_guard lock(mutex_);
    Waiting& waiting = queues_[queue];
    for (Item& item : waiting.items) {
      total_bytes_ -= item.bytes;
      shared->items.push_back(std::move(item));
    }
    waiting.items.clear();
    waiting.bytes = 0;
    waiting.in_flight = false;
    room_.notify_all();
  }
  fail(shared->expired, Status::timeout("the message waited for its auto batch past its send timeout"), window_);
  fail(shared->items, Status::unavailable("the client is shutting down; the auto batch was not sent"), window_);
}

void ProduceAccumulator::flush() {
  {
    std::lock_guard lock(mutex_);
    flushed_ = true;
  }
  timer_.notify_all();
}

void ProduceAccumulator::run_timer() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    const auto now = Clock::now();
    auto earliest = Clock::time_point::max();
    std::vector<Batch> due;
    for (auto& [queue, waiting] : queues_) {
      if (!waiting.held || waiting.in_flight) continue;
      if (flushed_ || waiting.hold_until <= now) {
        due.push_back(take_batch(queue, waiting, now));
      } else {
        earliest = std::min(earliest, waiting.hold_until);
      }
    }
    if (!due.empty()) {
      lock.unlock();
      for (Batch& batch : due) send(std::move(batch));
      lock.lock();
      continue;
    }
    if (earliest == Clock::time_point::max()) {
      timer_.wait(lock);
    } else {
      timer_.wait_until(lock, earliest);
    }
  }
}

void ProduceAccumulator::deliver(std::vector<Item>& items, const Result<SendResult>& result, SendWindow& window) {
  if (!result) return fail(items, result.status(), window);
  if (items.size() == 1) {
    call_send_callback(items.front().done, result);
    window.release(items.front().window_bytes);
    return;
  }
  // One SEND_BATCH_MESSAGE: ids comma-joined in batch order, consecutive queue offsets.
  const auto ids = split_ids(result->msg_id);
  const auto offset_ids = split_ids(result->offset_msg_id);
  for (std::size_t i = 0; i < items.size(); ++i) {
    SendResult one;
    one.status = result->status;
    if (i < ids.size()) one.msg_id = std::string(ids[i]);
    if (i < offset_ids.size()) one.offset_msg_id = std::string(offset_ids[i]);
    one.message_queue = result->message_queue;
    one.queue_offset = result->queue_offset + static_cast<std::int64_t>(i);
    one.transaction_id = result->transaction_id;
    one.region_id = result->region_id;
    one.trace_on = result->trace_on;
    call_send_callback(items[i].done, std::move(one));
    window.release(items[i].window_bytes);
  }
}

void ProduceAccumulator::fail(std::vector<Item>& items, const Status& status, SendWindow& window) {
  for (const Item& item : items) {
    call_send_callback(item.done, status);
    window.release(item.window_bytes);
  }
}

}  // namespace mqkit::client
