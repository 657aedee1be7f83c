// KeyIndex: the memory store's counterpart of RocketMQ's IndexFile, and laid out like it: a slot
// table of hash(topic, key) -> newest item, and items in commit order, each linking to the
// previous item of its slot. Every message adds one item per key it carries (its UNIQ_KEY and
// each space-separated KEYS entry) and no per-key allocation. Items only ever leave from the
// oldest end, when the log evicts their records, so a chain simply ends where pruning stopped.
//
// Items hold a 64-bit hash, not the key: the store checks each candidate record's own topic and
// properties, so a collision never returns a wrong record.
//
// Threads: add() and prune() run on the kernel's reput thread (the store's dispatcher and
// on_dispatched); visit() on any thread. One reader/writer lock guards it all.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <shared_mutex>
#include <string_view>
#include <vector>

namespace mqkit::plugins::stores::memory {

// Calls fn(key) for each key RocketMQ indexes a message under: its UNIQ_KEY, then every non-empty
// space-separated entry of KEYS.
template <typename Fn>
void for_each_index_key(std::string_view keys, std::string_view unique_key, Fn&& fn) {
  if (!unique_key.empty()) fn(unique_key);
  while (!keys.empty()) {
    const auto space = keys.find(' ');
    const std::string_view key = keys.substr(0, space);
    if (!key.empty()) fn(key);
    if (space == std::string_view::npos) break;
    keys.remove_prefix(space + 1);
  }
}

class KeyIndex {
 public:
  struct Hit {
    std::int64_t commit_offset = 0;
    std::int64_t store_timestamp = 0;
  };
  // Memory one indexed key costs: its item plus, at most, one slot.
  static constexpr std::int64_t kBytesPerKey = 48;

  KeyIndex();

  // Reput thread. Records arrive in commit offset order.
  void add(std::string_view topic, std::string_view keys, std::string_view unique_key, const Hit& hit);
  // Reput thread: forgets records older than the log's min offset.
  void prune(std::int64_t log_min_offset);

  // Calls visit(hit) for the records of `topic` indexed under `key` (or under a key with the same
  // hash) stored within [begin_ms, end_ms], newest first, until visit returns false. Holds the
  // read lock meanwhile.
  void visit(std::string_view topic, std::string_view key, std::int64_t begin_ms, std::int64_t end_ms,
             const std::function<bool(const Hit&)>& visit) const;

  // The newest indexed record (QueryResult's index_last_update_*).
  Hit last_update() const;

 private:
  static constexpr std::int64_t kNone = -1;
  struct Item {
    std::uint64_t key_hash = 0;
    Hit hit{};
    std::int64_t previous = kNone;  // sequence number of the previous item in the same slot
  };

  static std::uint64_t hash_of(std::string_view topic, std::string_view key) noexcept;
  // Lock held. Sequence number of the newest live item of the slot `key_hash` falls in.
  std::int64_t& slot_of(std::uint64_t key_hash) { return slots_[key_hash & (slots_.size() - 1)]; }
  const Item* item(std::int64_t sequence) const;
  // Write lock held: doubles the slot table and relinks every live item.
  void grow();

  mutable std::shared_mutex mutex_;
  std::vector<std::int64_t> slots_;  // power-of-two size
  std::deque<Item> items_;           // items_[i] has sequence number first_sequence_ + i
  std::int64_t first_sequence_ = 0;
  std::int64_t next_commit_offset_ = 0;  // records below it were indexed
  Hit last_update_{};
};

}  // namespace mqkit::plugins::stores::memory
