#include "key_index.hpp"

#include <mutex>

namespace mqkit::plugins::stores::memory {

namespace {
constexpr std::size_t kInitialSlots = 1024;
}  // namespace

KeyIndex::KeyIndex() : slots_(kInitialSlots, kNone) {}

std::uint64_t KeyIndex::hash_of(std::string_view topic, std::string_view key) noexcept {
  // RocketMQ indexes "topic#key"; combining two hashes gives the same without building it.
  const std::uint64_t t = std::hash<std::string_view>{}(topic);
  const std::uint64_t k = std::hash<std::string_view>{}(key);
  return k ^ (t + 0x9E3779B97F4A7C15ULL + (k << 6) + (k >> 2));
}

const KeyIndex::Item* KeyIndex::item(std::int64_t sequence) const {
  if (sequence < first_sequence_) return nullptr;  // kNone, or pruned
  return &items_[static_cast<std::size_t>(sequence - first_sequence_)];
}

void KeyIndex::add(std::string_view topic, std::string_view keys, std::string_view unique_key, const Hit& hit) {
  std::unique_lock lock(mutex_);
  // Records arrive in commit order: an older one is a dispatch retried after a later dispatcher
  // failed, and is indexed already.
  if (hit.commit_offset < next_commit_offset_) return;
  next_commit_offset_ = hit.commit_offset + 1;
  const std::size_t first_new = items_.size();
  for_each_index_key(keys, unique_key, [&](std::string_view key) {
    const std::uint64_t key_hash = hash_of(topic, key);
    // A key listed twice, or a UNIQ_KEY repeated in KEYS: one item per record and key.
    for (std::size_t i = first_new; i < items_.size(); ++i) {
      if (items_[i].key_hash == key_hash) return;
    }
    std::int64_t& slot = slot_of(key_hash);
    items_.push_back({key_hash, hit, slot});
    slot = first_sequence_ + static_cast<std::int64_t>(items_.size()) - 1;
    last_update_ = hit;
  });
  if (items_.size() > slots_.size()) grow();
}

void KeyIndex::grow() {
  slots_.assign(slots_.size() * 2, kNone);
  std::int64_t sequence = first_sequence_;
  for (Item& live : items_) {
    std::int64_t& slot = slot_of(live.key_hash);
    live.previous = slot;
    slot = sequence++;
  }
}

void KeyIndex::prune(std::int64_t log_min_offset) {
  std::unique_lock lock(mutex_);
  while (!items_.empty() && items_.front().hit.commit_offset < log_min_offset) {
    items_.pop_front();
    ++first_sequence_;
  }
}

void KeyIndex::visit(std::string_view topic, std::string_view key, std::int64_t begin_ms, std::int64_t end_ms,
                     const std::function<bool(const Hit&)>& visit) const {
  const std::uint64_t key_hash = hash_of(topic, key);
  std::shared_lock lock(mutex_);
  for (const Item* candidate = item(slots_[key_hash & (slots_.size() - 1)]); candidate != nullptr;
       candidate = item(candidate->previous)) {
    if (candidate->key_hash != key_hash || candidate->hit.store_timestamp > end_ms) continue;
    // Store timestamps never decrease along the log, so nothing older can be in range.
    if (candidate->hit.store_timestamp < begin_ms) return;
    if (!visit(candidate->hit)) return;
  }
}

KeyIndex::Hit KeyIndex::last_update() const {
  std::shared_lock lock(mutex_);
  return last_update_;
}

}  // namespace mqkit::plugins::stores::memory
