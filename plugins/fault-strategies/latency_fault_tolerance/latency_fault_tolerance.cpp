// latency_fault_tolerance: RocketMQ's MQFaultStrategy + LatencyFaultToleranceImpl. A send that
// took long (or failed) makes its broker "not available" for a while, chosen from a
// latency -> duration table; the producer's selector then prefers other brokers.
#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mqkit/plugin/v1/plugin.hpp"

namespace mqkit::plugins::fault_strategies {

namespace v1 = ::mqkit::plugin::v1;

namespace {

constexpr const char* kPluginName = "latency_fault_tolerance";
constexpr const char* kLatencyMaxKey = "latency_max_ms";
constexpr const char* kDurationKey = "not_available_duration_ms";
constexpr const char* kIsolationKey = "isolation_latency_ms";
// About 31 years: keeps "now + duration" far from int64 overflow in nanoseconds.
constexpr std::int64_t kMaxMillis = 1'000'000'000'000;

using Clock = std::chrono::steady_clock;

std::int64_t now_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

std::string_view trim(std::string_view text) noexcept {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

v1::Result<std::vector<std::int64_t>> parse_millis_list(std::string_view key,
                                                        const std::vector<std::string>& entries) {
  if (entries.empty()) {
    return v1::Status::invalid_argument(std::string(kPluginName) + ": " + std::string(key) +
                                        " must list at least one value");
  }
  std::vector<std::int64_t> values;
  values.reserve(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string_view text = trim(entries[i]);
    std::int64_t value = -1;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    // from_chars accepts a leading '-': rejected by the range check below.
    if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < 0 ||
        value > kMaxMillis) {
      return v1::Status::invalid_argument(
          std::string(kPluginName) + ": " + std::string(key) + " entry " + std::to_string(i) +
          " (\"" + entries[i] + "\") is not a whole number of milliseconds between 0 and " +
          std::to_string(kMaxMillis));
    }
    values.push_back(value);
  }
  return values;
}

}  // namespace

class LatencyFaultTolerance final : public v1::FaultStrategy {
 public:
  struct Step {
    std::int64_t latency_max_ms;    // a send at least this slow ...
    std::int64_t not_available_ms;  // ... makes its broker unavailable this long
  };

  static v1::Result<std::unique_ptr<LatencyFaultTolerance>> create(const v1::ConfigValues& config,
                                                                   v1::Host& /*host*/) {
    MQKIT_ASSIGN_OR_RETURN(std::vector<std::int64_t> latencies,
                           parse_millis_list(kLatencyMaxKey, config.get_list(kLatencyMaxKey)));
    MQKIT_ASSIGN_OR_RETURN(std::vector<std::int64_t> durations,
                           parse_millis_list(kDurationKey, config.get_list(kDurationKey)));
    if (latencies.size() != durations.size()) {
      return v1::Status::invalid_argument(
          std::string(kPluginName) + ": " + kLatencyMaxKey + " has " +
          std::to_string(latencies.size()) + " entries but " + kDurationKey + " has " +
          std::to_string(durations.size()) + "; they pair up one to one and must be equally long");
    }
    std::vector<Step> table;
    table.reserve(latencies.size());
    for (std::size_t i = 0; i < latencies.size(); ++i) {
      if (i > 0 && latencies[i] <= latencies[i - 1]) {
        return v1::Status::invalid_argument(
            std::string(kPluginName) + ": " + kLatencyMaxKey +
            " must be strictly increasing, but entry " + std::to_string(i) + " (" +
            std::to_string(latencies[i]) + ") is not greater than entry " + std::to_string(i - 1) +
            " (" + std::to_string(latencies[i - 1]) + ")");
      }
      table.push_back({latencies[i], durations[i]});
    }
    const std::int64_t isolation_ms = config.get_duration_ms(kIsolationKey);
    if (isolation_ms < 0) {
      return v1::Status::invalid_argument(std::string(kPluginName) + ": " + kIsolationKey +
                                          " must not be negative");
    }
    return std::make_unique<LatencyFaultTolerance>(std::move(table), isolation_ms);
  }

  LatencyFaultTolerance(std::vector<Step> table, std::int64_t isolation_latency_ms)
      : table_(std::move(table)),
        isolation_latency_ms_(isolation_latency_ms),
        // Java seeds its ThreadLocalIndex randomly; the clock is random enough to keep
        // producers started together from all trying the same broker first.
        which_item_worst_(static_cast<std::uint32_t>(now_ns())) {}

  bool is_available(std::string_view broker_name) const noexcept override {
    std::shared_lock lock(mutex_);
    const auto item = items_.find(broker_name);
    // A broker never reported on is innocent; one whose last report isolated it for no time
    // (every fast send) is available without a clock read.
    if (item == items_.end() || !item->second->isolated.load(std::memory_order_relaxed)) return true;
    return now_ns() >= item->second->not_available_until_ns.load(std::memory_order_relaxed);
  }

  // MQFaultStrategy.updateFaultItem: a failed attempt counts as isolation_latency_ms (5.x: 10 s,
  // which the default table turns into 10 s of isolation). Unlike Java, that is also the latency
  // remembered for pick_one_at_least's ranking, as the v1 interface specifies, so a broker that
  // refused a connection quickly does not rank as the fastest.
  void update(std::string_view broker_name, std::int64_t latency_ms,
              bool isolation) noexcept override {
    const std::int64_t effective =
        isolation ? isolation_latency_ms_ : std::max<std::int64_t>(latency_ms, 0);
    const std::int64_t duration_ms = not_available_ms(effective);
    const std::int64_t until_ns = now_ns() + duration_ms * 1'000'000;
    {
      // A known broker (every report but its first) is updated under the shared lock: a busy
      // producer reports from its io thread while its sending thread reads.
      std::shared_lock lock(mutex_);
      const auto existing = items_.find(broker_name);
      if (existing != items_.end()) {
        existing->second->store(effective, until_ns, duration_ms > 0);
        return;
      }
    }
    try {
      std::unique_lock lock(mutex_);
      auto& item = items_[std::string(broker_name)];
      if (!item) item = std::make_unique<FaultItem>();
      item->store(effective, until_ns, duration_ms > 0);
    } catch (...) {
      // Out of memory: forgetting one report only makes the broker look healthier than it is.
    }
  }

  // LatencyFaultToleranceImpl.pickOneAtLeast: rank every known broker (available first, then
  // lower latency, then earlier end of isolation) and take the better half round robin, so that
  // repeated calls do not pile onto a single broker.
  std::optional<std::string> pick_one_at_least() noexcept override {
    try {
      struct Ranked {
        bool available;
        std::int64_t latency_ms;
        std::int64_t not_available_until_ns;
        const std::string* name;
      };
      std::shared_lock lock(mutex_);
      if (items_.empty()) return std::nullopt;
      const std::int64_t now = now_ns();
      std::vector<Ranked> ranked;
      ranked.reserve(items_.size());
      for (const auto& [name, item] : items_) {
        const std::int64_t until = item->not_available_until_ns.load(std::memory_order_relaxed);
        ranked.push_back({now >= until, item->latency_ms.load(std::memory_order_relaxed), until, &name});
      }
      // Java shuffles first to break ties at random; the name breaks them here so that the
      // result is reproducible.
      std::sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
        if (a.available != b.available) return a.available;
        if (a.latency_ms != b.latency_ms) return a.latency_ms < b.latency_ms;
        if (a.not_available_until_ns != b.not_available_until_ns) {
          return a.not_available_until_ns < b.not_available_until_ns;
        }
        return *a.name < *b.name;
      });
      const std::size_t half = ranked.size() / 2;
      if (half == 0) return *ranked.front().name;
      const std::uint32_t turn =
          (which_item_worst_.fetch_add(1, std::memory_order_relaxed) + 1) & 0x7FFFFFFF;
      return *ranked[turn % half].name;
    } catch (...) {
      return std::nullopt;
    }
  }

  void remove(std::string_view broker_name) noexcept override {
    std::unique_lock lock(mutex_);
    const auto item = items_.find(broker_name);
    if (item != items_.end()) items_.erase(item);
  }

 private:
  // Atomics: a report on a known broker changes them under the shared lock. A reader may see
  // one field of a report before the other, as Java's volatile fields allow.
  struct FaultItem {
    std::atomic<std::int64_t> latency_ms{0};
    std::atomic<std::int64_t> not_available_until_ns{0};
    std::atomic<bool> isolated{false};  // the last report made it unavailable for some time

    void store(std::int64_t latency, std::int64_t until_ns, bool isolating) noexcept {
      latency_ms.store(latency, std::memory_order_relaxed);
      not_available_until_ns.store(until_ns, std::memory_order_relaxed);
      isolated.store(isolating, std::memory_order_relaxed);
    }
  };
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };

  // computeNotAvailableDuration: the step of the largest latency_max the latency reaches.
  std::int64_t not_available_ms(std::int64_t latency_ms) const noexcept {
    for (auto step = table_.rbegin(); step != table_.rend(); ++step) {
      if (latency_ms >= step->latency_max_ms) return step->not_available_ms;
    }
    return 0;
  }

  const std::vector<Step> table_;
  const std::int64_t isolation_latency_ms_;
  // Guards the map's shape (brokers added or removed); the items change under the shared lock.
  mutable std::shared_mutex mutex_;
  std::unordered_map<std::string, std::unique_ptr<FaultItem>, NameHash, std::equal_to<>> items_;
  std::atomic<std::uint32_t> which_item_worst_;
};

constexpr const char* kAliases[] = {"LatencyFaultTolerance",
                                    "LatencyFaultToleranceImpl",
                                    "org.apache.rocketmq.client.latency.LatencyFaultToleranceImpl",
                                    "MQFaultStrategy",
                                    "org.apache.rocketmq.client.latency.MQFaultStrategy",
                                    nullptr};

// RocketMQ 5.x defaults (4.x used 50,100,550,1000,2000,3000,15000 -> 0,0,30000,60000,120000,
// 180000,600000 and a 30 s isolation latency).
constexpr v1::ConfigField kSchema[] = {
    {.key = kLatencyMaxKey,
     .type = v1::ValueType::kStringList,
     .default_value = "50,100,550,1800,3000,5000,15000",
     .description = "Latency thresholds in ms, strictly increasing: a send at least "
                    "latency_max_ms[i] slow (the largest such i) makes its broker unavailable for "
                    "not_available_duration_ms[i]"},
    {.key = kDurationKey,
     .type = v1::ValueType::kStringList,
     .default_value = "0,0,2000,5000,6000,10000,30000",
     .description = "How long, in ms, a broker stays unavailable after a send in the matching "
                    "latency_max_ms step; one entry per latency_max_ms entry"},
    {.key = kIsolationKey,
     .type = v1::ValueType::kDuration,
     .default_value = "10000",
     .description = "The latency a failed send counts as (RocketMQ 5.x: 10000; 4.x: 30000)",
     .min = 0,
     .max = static_cast<double>(kMaxMillis)},
};

}  // namespace mqkit::plugins::fault_strategies

MQKIT_PLUGIN(FaultStrategy, ::mqkit::plugins::fault_strategies::LatencyFaultTolerance,
             "latency_fault_tolerance", ::mqkit::plugins::fault_strategies::kAliases, "1.0.0",
             "Avoid brokers whose sends were slow or failed, for a time taken from a "
             "latency table (RocketMQ MQFaultStrategy)",
             ::mqkit::plugins::fault_strategies::kSchema)
