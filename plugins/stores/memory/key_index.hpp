// KeyIndex: the memory store's counterpart of RocketMQ's IndexFile. For every topic it records
// which records carry a key — the UNIQ_KEY and each space-separated KEYS entry — so that
// query_by_key finds them without scanning the log. Keys are kept as 64-bit hashes; the store
// checks each candidate record's own properties, so a hash collision never returns a wrong record.
//
// Threads: add() and prune() run on the kernel's reput thread (the store's dispatcher and
// on_dispatched); visit() and erase_topic() on any thread. One reader/writer lock guards it all.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <shared_mutex>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "string_map.hpp"

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

  // Reput thread. Records arrive in commit offset order.
  void add(std::string_view topic, std::string_view keys, std::string_view unique_key, const Hit& hit);
  // Reput thread: forgets records older than the log's min offset.
  void prune(std::int64_t log_min_offset);
  void erase_topic(std::string_view topic);

  // Calls visit(hit) for the records of `topic` indexed under `key` and stored within
  // [begin_ms, end_ms], newest first, until visit returns false. Holds the read lock meanwhile.
  void visit(std::string_view topic, std::string_view key, std::int64_t begin_ms, std::int64_t end_ms,
             const std::function<bool(const Hit&)>& visit) const;

  // The newest indexed record (QueryResult's index_last_update_*).
  Hit last_update() const;

 private:
  struct TopicKeys {
    std::unordered_map<std::uint64_t, std::vector<Hit>> hits_by_key;  // oldest first
  };
  // One per hit, in commit offset order: what prune() walks instead of every key.
  struct Added {
    std::int64_t commit_offset = 0;
    TopicKeys* topic = nullptr;
    std::uint64_t key_hash = 0;
  };
  static std::uint64_t hash_key(std::string_view key) noexcept;

  mutable std::shared_mutex mutex_;
  StringMap<std::unique_ptr<TopicKeys>> topics_;
  std::deque<Added> added_;
  Hit last_update_{};
};

}  // namespace mqkit::plugins::stores::memory
