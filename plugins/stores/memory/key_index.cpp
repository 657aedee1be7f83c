#include "key_index.hpp"

#include <algorithm>
#include <mutex>
#include <string>

namespace mqkit::plugins::stores::memory {

std::uint64_t KeyIndex::hash_key(std::string_view key) noexcept { return std::hash<std::string_view>{}(key); }

void KeyIndex::add(std::string_view topic, std::string_view keys, std::string_view unique_key, const Hit& hit) {
  std::unique_lock lock(mutex_);
  TopicKeys* topic_keys = nullptr;
  for_each_index_key(keys, unique_key, [&](std::string_view key) {
    if (topic_keys == nullptr) {
      auto& slot = topics_[std::string(topic)];
      if (!slot) slot = std::make_unique<TopicKeys>();
      topic_keys = slot.get();
    }
    const std::uint64_t key_hash = hash_key(key);
    auto& hits = topic_keys->hits_by_key[key_hash];
    // A key listed twice, a retried dispatch, or a UNIQ_KEY repeated in KEYS: one hit per record.
    if (!hits.empty() && hits.back().commit_offset >= hit.commit_offset) return;
    hits.push_back(hit);
    added_.push_back({hit.commit_offset, topic_keys, key_hash});
    last_update_ = hit;
  });
}

void KeyIndex::prune(std::int64_t log_min_offset) {
  std::unique_lock lock(mutex_);
  while (!added_.empty() && added_.front().commit_offset < log_min_offset) {
    const Added& added = added_.front();
    auto& by_key = added.topic->hits_by_key;
    if (const auto it = by_key.find(added.key_hash); it != by_key.end()) {
      auto& hits = it->second;
      const auto live = std::partition_point(hits.begin(), hits.end(), [&](const Hit& h) {
        return h.commit_offset < log_min_offset;
      });
      hits.erase(hits.begin(), live);
      if (hits.empty()) by_key.erase(it);
    }
    added_.pop_front();
  }
}

void KeyIndex::erase_topic(std::string_view topic) {
  std::unique_lock lock(mutex_);
  const auto it = topics_.find(topic);
  if (it == topics_.end()) return;
  const TopicKeys* gone = it->second.get();
  std::erase_if(added_, [&](const Added& added) { return added.topic == gone; });
  topics_.erase(it);
}

void KeyIndex::visit(std::string_view topic, std::string_view key, std::int64_t begin_ms, std::int64_t end_ms,
                     const std::function<bool(const Hit&)>& visit) const {
  std::shared_lock lock(mutex_);
  const auto topic_it = topics_.find(topic);
  if (topic_it == topics_.end()) return;
  const auto& by_key = topic_it->second->hits_by_key;
  const auto hits = by_key.find(hash_key(key));
  if (hits == by_key.end()) return;
  for (auto hit = hits->second.rbegin(); hit != hits->second.rend(); ++hit) {
    if (hit->store_timestamp < begin_ms || hit->store_timestamp > end_ms) continue;
    if (!visit(*hit)) return;
  }
}

KeyIndex::Hit KeyIndex::last_update() const {
  std::shared_lock lock(mutex_);
  return last_update_;
}

}  // namespace mqkit::plugins::stores::memory
