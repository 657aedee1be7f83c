#include "mqkit/client/process_queue.hpp"

#include "mqkit/kernel/wall_clock.hpp"

namespace mqkit::client {

bool ProcessQueue::put(const std::vector<MessageExt>& messages) {
  std::lock_guard lock(mutex_);
  for (const auto& message : messages) {
    if (message.queue_offset <= max_offset_ && (messages_.contains(message.queue_offset) ||
                                                 consuming_.contains(message.queue_offset))) {
      continue;
    }
    messages_.emplace(message.queue_offset, Cached{message});
    bytes_ += message.body().size();
    if (message.queue_offset > max_offset_) max_offset_ = message.queue_offset;
  }
  if (messages_.empty() || consuming_active_) return false;
  consuming_active_ = true;
  return true;
}

std::int64_t ProcessQueue::commit_offset_locked() const {
  if (!messages_.empty()) return messages_.begin()->first;
  return max_offset_ < 0 ? -1 : max_offset_ + 1;
}

std::int64_t ProcessQueue::remove(const std::vector<MessageExt>& messages) {
  std::lock_guard lock(mutex_);
  for (const auto& message : messages) {
    const auto it = messages_.find(message.queue_offset);
    if (it == messages_.end()) continue;
    bytes_ -= it->second.message.body().size();
    messages_.erase(it);
  }
  return commit_offset_locked();
}

void ProcessQueue::mark_consume_started(const std::vector<MessageExt>& messages) {
  const auto now = Clock::now();
  std::lock_guard lock(mutex_);
  last_consume_time_ = now;
  for (const auto& message : messages) {
    if (const auto it = messages_.find(message.queue_offset); it != messages_.end()) it->second.consume_started = now;
  }
}

std::optional<MessageExt> ProcessQueue::expired_head(std::chrono::milliseconds timeout) const {
  std::lock_guard lock(mutex_);
  if (messages_.empty()) return std::nullopt;
  const Cached& head = messages_.begin()->second;
  if (head.consume_started == Clock::time_point{} || Clock::now() - head.consume_started <= timeout) {
    return std::nullopt;
  }
  return head.message;
}

std::size_t ProcessQueue::message_count() const {
  std::lock_guard lock(mutex_);
  return messages_.size() + consuming_.size();
}

std::size_t ProcessQueue::message_bytes() const {
  std::lock_guard lock(mutex_);
  return bytes_;
}

std::int64_t ProcessQueue::max_span() const {
  std::lock_guard lock(mutex_);
  if (messages_.empty()) return 0;
  return messages_.rbegin()->first - messages_.begin()->first;
}

std::vector<MessageExt> ProcessQueue::take_messages(std::size_t count) {
  std::lock_guard lock(mutex_);
  std::vector<MessageExt> out;
  while (out.size() < count && !messages_.empty()) {
    auto node = messages_.extract(messages_.begin());
    out.push_back(node.mapped().message);
    consuming_.insert(std::move(node));
  }
  if (out.empty()) {
    consuming_active_ = false;  // the consumer stops; the next put dispatches again
  } else {
    last_consume_time_ = Clock::now();
  }
  return out;
}

std::int64_t ProcessQueue::commit() {
  std::lock_guard lock(mutex_);
  for (const auto& [offset, cached] : consuming_) bytes_ -= cached.message.body().size();
  std::int64_t offset = -1;
  if (!consuming_.empty()) offset = consuming_.rbegin()->first + 1;
  consuming_.clear();
  // Orderly consumption takes messages in offset order, so everything below the consumed
  // set's end is done; the cache starts above it.
  return offset;
}

void ProcessQueue::make_messages_to_consume_again(const std::vector<MessageExt>& messages) {
  std::lock_guard lock(mutex_);
  for (const auto& message : messages) {
    auto node = consuming_.extract(message.queue_offset);
    if (node.empty()) continue;
    node.mapped().message = message;  // keeps its raised reconsume count
    messages_.insert(std::move(node));
  }
}

void ProcessQueue::set_locked(bool locked) {
  std::lock_guard lock(mutex_);
  locked_.store(locked);
  if (locked) last_lock_time_ = Clock::now();
}

bool ProcessQueue::lock_valid() const {
  std::lock_guard lock(mutex_);
  return locked_.load() && Clock::now() - last_lock_time_ <= kLockMaxLive;
}

ProcessQueue::Clock::time_point ProcessQueue::last_lock_time() const {
  std::lock_guard lock(mutex_);
  return last_lock_time_;
}

ProcessQueue::Clock::time_point ProcessQueue::last_pull_time() const {
  std::lock_guard lock(mutex_);
  return last_pull_time_;
}

void ProcessQueue::mark_pulled() {
  std::lock_guard lock(mutex_);
  last_pull_time_ = Clock::now();
}

protocol::ProcessQueueInfo ProcessQueue::info() const {
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  const auto steady_now = Clock::now();
  const std::int64_t wall_now_ms = kernel::wall_clock_ms();
  const auto wall_ms = [&](Clock::time_point t) {
    return t == Clock::time_point{} ? 0 : wall_now_ms - duration_cast<milliseconds>(steady_now - t).count();
  };
  constexpr std::size_t kMiB = 1024 * 1024;
  protocol::ProcessQueueInfo info;
  std::lock_guard lock(mutex_);
  if (!messages_.empty()) {
    info.cached_msg_min_offset = messages_.begin()->first;
    info.cached_msg_max_offset = messages_.rbegin()->first;
    info.cached_msg_count = static_cast<std::int32_t>(messages_.size());
  }
  info.cached_msg_size_in_mib = static_cast<std::int32_t>(bytes_ / kMiB);
  if (!consuming_.empty()) {
    info.transaction_msg_min_offset = consuming_.begin()->first;
    info.transaction_msg_max_offset = consuming_.rbegin()->first;
    info.transaction_msg_count = static_cast<std::int32_t>(consuming_.size());
  }
  info.locked = locked_.load();
  info.last_lock_timestamp = wall_ms(last_lock_time_);
  info.dropped = dropped_.load();
  info.last_pull_timestamp = wall_ms(last_pull_time_);
  info.last_consume_timestamp = wall_ms(last_consume_time_);
  return info;
}

void ProcessQueue::clear() {
  std::lock_guard lock(mutex_);
  messages_.clear();
  consuming_.clear();
  bytes_ = 0;
  consuming_active_ = false;
}

}  // namespace mqkit::client
