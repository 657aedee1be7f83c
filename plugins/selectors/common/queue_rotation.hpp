// Round-robin queue choice shared by the round_robin and machine_room selectors: RocketMQ's
// ThreadLocalIndex plus the fallback passes of MQFaultStrategy.selectOneMessageQueue.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "mqkit/plugin/v1/message_queue.hpp"
#include "mqkit/plugin/v1/selector.hpp"
#include "selectors/common/random.hpp"

namespace mqkit::plugins::selectors {

// RocketMQ's ThreadLocalIndex: every sending thread keeps its own counter, seeded randomly so that
// many producers do not all start on queue 0, and advances it by one per send. Java keeps one per
// TopicPublishInfo, i.e. per topic; so do we (per selector object and topic), because a single
// counter shared by two topics with an even number of queues, sent to alternately, would only
// ever reach every other queue of each.
class ThreadLocalIndex {
 public:
  ThreadLocalIndex() noexcept : id_(next_object_id()) {}
  ThreadLocalIndex(const ThreadLocalIndex&) = delete;
  ThreadLocalIndex& operator=(const ThreadLocalIndex&) = delete;

  // This thread's next position for `topic`: counter++ & 0x7FFFFFFF (never negative, as Java).
  std::uint32_t next(std::string_view topic) noexcept {
    try {
      auto& counters = thread_counters();
      auto object = counters.find(id_);
      if (object == counters.end()) {
        // Selector objects come and go (producers restart); entries of dead ones are never
        // read again, so dropping everything now and then only costs fresh random seeds.
        if (counters.size() >= kMaxObjectsPerThread) counters.clear();
        object = counters.emplace(id_, TopicCounters{}).first;
      }
      TopicCounters& topics = object->second;
      auto counter = topics.find(topic);
      if (counter == topics.end()) {
        if (topics.size() >= kMaxTopicsPerObject) topics.clear();
        counter = topics.emplace(std::string(topic), random_start()).first;
      }
      return counter->second++ & kPositiveMask;
    } catch (...) {
      // Out of memory for the table: keep sending with one counter for everything.
      thread_local std::uint32_t fallback = random_start();
      return fallback++ & kPositiveMask;
    }
  }

 private:
  static constexpr std::uint32_t kPositiveMask = 0x7FFFFFFF;
  static constexpr std::size_t kMaxObjectsPerThread = 64;
  static constexpr std::size_t kMaxTopicsPerObject = 4096;

  struct TopicHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };
  using TopicCounters = std::unordered_map<std::string, std::uint32_t, TopicHash, std::equal_to<>>;

  static std::unordered_map<std::uint64_t, TopicCounters>& thread_counters() {
    thread_local std::unordered_map<std::uint64_t, TopicCounters> counters;
    return counters;
  }
  // Ids, not addresses: a new selector allocated where a dead one lived must not inherit its
  // counters.
  static std::uint64_t next_object_id() noexcept {
    static std::atomic<std::uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
  }
  static std::uint32_t random_start() noexcept {
    return static_cast<std::uint32_t>(thread_rng()() >> 32);
  }

  const std::uint64_t id_;
};

// Picks a queue round-robin from `position` (a ThreadLocalIndex value), preferring, in order:
//   1. a preferred queue on an available broker that is not last_failed_broker,
//   2. any queue on an available broker that is not last_failed_broker,
//   3. a preferred queue not on last_failed_broker,
//   4. any queue not on last_failed_broker,
//   5. a preferred queue,
//   6. any queue.
// "Available" always holds without context.availability, and "not last_failed_broker" always
// holds on a first attempt, so for plain round robin (everything preferred) this is RocketMQ 5.x
// MQFaultStrategy.selectOneMessageQueue: available and not the last broker, then (where 5.x asks
// its reachability detector, which we do not have) not the last broker, then plain next.
//
// Within a pass the choice is the (position % m)-th of the m matching queues in route order, so
// consecutive positions spread evenly over exactly the matching queues. (Java scans from
// position to the next match instead, which sends twice as much to the queue after a skipped
// one; the set of queues that can be chosen is the same.)
//
// `queues` must not be empty.
template <typename IsPreferred>
std::size_t pick_in_rotation(std::span<const plugin::v1::MessageQueue> queues,
                             const plugin::v1::SelectContext& context, std::uint32_t position,
                             IsPreferred&& is_preferred) noexcept {
  enum : std::uint8_t { kPreferred = 1, kAvailable = 2, kNotLastFailed = 4 };
  constexpr std::uint8_t kPasses[] = {kPreferred | kAvailable | kNotLastFailed,
                                      kAvailable | kNotLastFailed, kPreferred | kNotLastFailed,
                                      kNotLastFailed, kPreferred};

  // Route order groups a broker's queues together: ask about each broker once per run of queues.
  std::string_view previous_broker;
  bool previous_available = true;
  bool have_previous = false;
  const auto traits_of = [&](const plugin::v1::MessageQueue& queue) {
    std::uint8_t traits = 0;
    if (is_preferred(queue)) traits |= kPreferred;
    if (context.availability == nullptr) {
      traits |= kAvailable;
    } else {
      if (!have_previous || queue.broker_name != previous_broker) {
        previous_broker = queue.broker_name;
        previous_available = context.availability->is_available(queue.broker_name);
        have_previous = true;
      }
      if (previous_available) traits |= kAvailable;
    }
    if (context.last_failed_broker.empty() || queue.broker_name != context.last_failed_broker) {
      traits |= kNotLastFailed;
    }
    return traits;
  };

  // Traits are computed once per queue for the usual topic sizes; larger routes recompute them
  // per pass rather than allocate on the send path.
  constexpr std::size_t kInlineQueues = 256;
  std::array<std::uint8_t, kInlineQueues> cached{};
  const bool use_cache = queues.size() <= kInlineQueues;
  if (use_cache) {
    for (std::size_t i = 0; i < queues.size(); ++i) cached[i] = traits_of(queues[i]);
  }
  const auto traits_at = [&](std::size_t i) {
    return use_cache ? cached[i] : traits_of(queues[i]);
  };

  for (const std::uint8_t wanted : kPasses) {
    std::size_t matching = 0;
    for (std::size_t i = 0; i < queues.size(); ++i) {
      if ((traits_at(i) & wanted) == wanted) ++matching;
    }
    if (matching == 0) continue;
    std::size_t skip = position % matching;
    for (std::size_t i = 0; i < queues.size(); ++i) {
      if ((traits_at(i) & wanted) != wanted) continue;
      if (skip == 0) return i;
      --skip;
    }
  }
  return position % queues.size();
}

}  // namespace mqkit::plugins::selectors
