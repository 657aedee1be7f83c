// LabeledCells: one Cell (a few Counters, a Histogram) per label set — per topic, per topic and
// group — created on first use and kept for the object's lifetime, so a counter never goes
// back (a series that disappeared and came back at zero would read as a reset).
//
// Why this shape: the send and pull paths look up their cell once per request (a batch of
// messages shares its topic). A single map under one mutex would make every request thread
// write the same lock word. Here the label set hashes to one of 16 shards, each with its own
// reader/writer lock on its own cache line: a lookup takes that shard's lock shared, so two
// threads collide only when they hit the same shard at the same instant, and even then neither
// waits (shared locks do not exclude each other); the exclusive lock is taken once per new label
// set. The lookup key is built in a thread-local buffer, so a hit allocates nothing. The cell's
// own counters are relaxed atomics updated after the lock is released: cells never move or die,
// so the reference stays valid.
//
// Cardinality is what the broker's own tables hold (topics, groups): every label set comes from
// a topic or group the broker already keeps state for.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>

namespace mqkit::metrics {

template <typename Cell, std::size_t N>
class LabeledCells {
 public:
  using Values = std::array<std::string_view, N>;
  using Labels = std::array<std::string, N>;

  // The cell of the label values `values` (in the order the caller's labels are declared).
  Cell& at(const Values& values) {
    const std::string& key = key_of(values);
    Shard& shard = shards_[std::hash<std::string>{}(key) % kShards];
    {
      std::shared_lock lock(shard.mutex);
      if (const auto it = shard.entries.find(key); it != shard.entries.end()) return it->second->cell;
    }
    std::unique_lock lock(shard.mutex);
    auto& entry = shard.entries[key];
    if (!entry) {
      entry = std::make_unique<Entry>();
      for (std::size_t i = 0; i < N; ++i) entry->labels[i] = values[i];
    }
    return entry->cell;
  }

  // The cell of `values` if at() has created it, else null.
  const Cell* find(const Values& values) const {
    const std::string& key = key_of(values);
    const Shard& shard = shards_[std::hash<std::string>{}(key) % kShards];
    std::shared_lock lock(shard.mutex);
    const auto it = shard.entries.find(key);
    return it == shard.entries.end() ? nullptr : &it->second->cell;
  }

  // Calls fn(labels, cell) for every cell, shard by shard under the shard's shared lock: `fn`
  // must not call at() on this object.
  template <typename Fn>
  void for_each(Fn&& fn) const {
    visit(*this, fn);
  }
  template <typename Fn>
  void for_each(Fn&& fn) {
    visit(*this, fn);
  }

 private:
  // The map key of `values`, in a thread-local buffer (a hit allocates nothing).
  static const std::string& key_of(const Values& values) {
    thread_local std::string key;
    key.clear();
    for (const std::string_view value : values) {
      // Length-prefixed, so ("ab","c") and ("a","bc") never share a key.
      const auto size = static_cast<std::uint32_t>(value.size());
      char prefix[sizeof size];
      std::memcpy(prefix, &size, sizeof size);
      key.append(prefix, sizeof prefix);
      key.append(value);
    }
    return key;
  }

  template <typename Self, typename Fn>
  static void visit(Self& self, Fn& fn) {
    using CellRef = std::conditional_t<std::is_const_v<Self>, const Cell&, Cell&>;
    for (auto& shard : self.shards_) {
      std::shared_lock lock(shard.mutex);
      for (const auto& [key, entry] : shard.entries) fn(std::as_const(entry->labels), static_cast<CellRef>(entry->cell));
    }
  }

  static constexpr std::size_t kShards = 16;
  struct Entry {
    Labels labels;
    Cell cell;
  };
  struct alignas(64) Shard {
    mutable std::shared_mutex mutex;
    std::unordered_map<std::string, std::unique_ptr<Entry>> entries;
  };
  std::array<Shard, kShards> shards_;
};

}  // namespace mqkit::metrics
