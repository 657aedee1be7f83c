#include "lite_pull_assignment.hpp"

#include <algorithm>

namespace mqkit::client {

std::uint64_t LitePullAssignment::add(const MessageQueue& queue, std::shared_ptr<ProcessQueue> process_queue,
                                      std::int64_t pull_offset) {
  std::lock_guard lock(mutex_);
  auto [it, inserted] = queues_.try_emplace(queue);
  if (inserted) {
    it->second.process_queue = std::move(process_queue);
    it->second.pull_offset = pull_offset;
    it->second.epoch = next_epoch_++;
  }
  return it->second.epoch;
}

std::optional<std::int64_t> LitePullAssignment::remove(const MessageQueue& queue) {
  std::lock_guard lock(mutex_);
  const auto it = queues_.find(queue);
  if (it == queues_.end()) return std::nullopt;
  discard_batches(queue, it->second);
  const std::int64_t position = it->second.poll_position;
  queues_.erase(it);
  return position;
}

bool LitePullAssignment::contains(const MessageQueue& queue) const {
  std::lock_guard lock(mutex_);
  return queues_.contains(queue);
}

std::set<MessageQueue> LitePullAssignment::queues() const {
  std::lock_guard lock(mutex_);
  std::set<MessageQueue> out;
  for (const auto& [queue, state] : queues_) out.insert(queue);
  return out;
}

std::map<MessageQueue, std::shared_ptr<ProcessQueue>> LitePullAssignment::process_queues() const {
  std::lock_guard lock(mutex_);
  std::map<MessageQueue, std::shared_ptr<ProcessQueue>> out;
  for (const auto& [queue, state] : queues_) out.emplace(queue, state.process_queue);
  return out;
}

std::optional<std::uint64_t> LitePullAssignment::epoch(const MessageQueue& queue) const {
  std::lock_guard lock(mutex_);
  const auto it = queues_.find(queue);
  if (it == queues_.end()) return std::nullopt;
  return it->second.epoch;
}

LitePullAssignment::QueueState* LitePullAssignment::current(const MessageQueue& queue, std::uint64_t epoch) {
  const auto it = queues_.find(queue);
  if (it == queues_.end() || it->second.epoch != epoch) return nullptr;
  return &it->second;
}

std::optional<LitePullAssignment::Position> LitePullAssignment::position(const MessageQueue& queue,
                                                                         std::uint64_t epoch) const {
  std::lock_guard lock(mutex_);
  const auto it = queues_.find(queue);
  if (it == queues_.end() || it->second.epoch != epoch) return std::nullopt;
  return Position{it->second.process_queue, it->second.pull_offset, paused_.contains(queue)};
}

bool LitePullAssignment::set_pull_offset(const MessageQueue& queue, std::uint64_t epoch, std::int64_t offset) {
  std::lock_guard lock(mutex_);
  QueueState* state = current(queue, epoch);
  if (state == nullptr) return false;
  state->pull_offset = offset;
  return true;
}

bool LitePullAssignment::accept(const MessageQueue& queue, std::uint64_t epoch, std::int64_t pulled_at,
                                std::int64_t next_offset, std::vector<MessageExt> messages) {
  {
    std::lock_guard lock(mutex_);
    QueueState* state = current(queue, epoch);
    if (state == nullptr || state->pull_offset != pulled_at) return false;
    state->pull_offset = next_offset;
    if (messages.empty()) {
      if (state->waiting_batches == 0) state->poll_position = next_offset;
      return true;
    }
    state->process_queue->put(messages);
    ++state->waiting_batches;
    waiting_messages_ += messages.size();
    batches_.push_back(Batch{queue, std::move(messages), next_offset});
  }
  batch_ready_.notify_one();
  return true;
}

std::optional<LitePullAssignment::Batch> LitePullAssignment::take(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  while (!closed_) {
    const auto ready = std::find_if(batches_.begin(), batches_.end(),
                                    [this](const Batch& batch) { return !paused_.contains(batch.queue); });
    if (ready != batches_.end()) {
      Batch batch = std::move(*ready);
      batches_.erase(ready);
      waiting_messages_ -= batch.messages.size();
      QueueState& state = queues_.at(batch.queue);  // a removed queue's batches are gone too
      --state.waiting_batches;
      state.poll_position = batch.next_offset;
      state.process_queue->remove(batch.messages);
      return batch;
    }
    if (batch_ready_.wait_until(lock, deadline) == std::cv_status::timeout) break;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> LitePullAssignment::seek(const MessageQueue& queue, std::int64_t offset) {
  std::lock_guard lock(mutex_);
  const auto it = queues_.find(queue);
  if (it == queues_.end()) return std::nullopt;
  QueueState& state = it->second;
  discard_batches(queue, state);
  state.pull_offset = offset;
  state.poll_position = offset;
  state.epoch = next_epoch_++;
  return state.epoch;
}

void LitePullAssignment::pause(const std::vector<MessageQueue>& queues) {
  std::lock_guard lock(mutex_);
  paused_.insert(queues.begin(), queues.end());
}

std::map<MessageQueue, std::uint64_t> LitePullAssignment::resume(const std::vector<MessageQueue>& queues) {
  std::map<MessageQueue, std::uint64_t> restarted;
  {
    std::lock_guard lock(mutex_);
    for (const auto& queue : queues) {
      if (paused_.erase(queue) == 0) continue;
      const auto it = queues_.find(queue);
      if (it == queues_.end()) continue;
      it->second.epoch = next_epoch_++;
      restarted[queue] = it->second.epoch;
    }
  }
  batch_ready_.notify_all();  // their waiting batches may be taken again
  return restarted;
}

bool LitePullAssignment::paused(const MessageQueue& queue) const {
  std::lock_guard lock(mutex_);
  return paused_.contains(queue);
}

std::map<MessageQueue, std::int64_t> LitePullAssignment::poll_positions() const {
  std::lock_guard lock(mutex_);
  std::map<MessageQueue, std::int64_t> out;
  for (const auto& [queue, state] : queues_) {
    if (state.poll_position >= 0) out[queue] = state.poll_position;
  }
  return out;
}

std::size_t LitePullAssignment::waiting_messages() const {
  std::lock_guard lock(mutex_);
  return waiting_messages_;
}

void LitePullAssignment::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  batch_ready_.notify_all();
}

void LitePullAssignment::discard_batches(const MessageQueue& queue, QueueState& state) {
  for (auto it = batches_.begin(); it != batches_.end();) {
    if (it->queue == queue) {
      waiting_messages_ -= it->messages.size();
      it = batches_.erase(it);
    } else {
      ++it;
    }
  }
  state.waiting_batches = 0;
  state.process_queue->clear();
}

}  // namespace mqkit::client
