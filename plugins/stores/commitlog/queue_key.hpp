// QueueMap<V>: a hash map keyed by (topic, queue id) that is looked up with a string_view and an
// id, so the lookups on every append and every dispatched record build no key string.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace mqkit::plugins::stores::commitlog {

struct QueueKey {
  std::string topic;
  std::int32_t queue_id;
};

struct QueueKeyView {
  std::string_view topic;
  std::int32_t queue_id;
};

namespace queue_key_detail {
inline QueueKeyView view(const QueueKey& key) noexcept { return {key.topic, key.queue_id}; }
inline QueueKeyView view(QueueKeyView key) noexcept { return key; }

struct Hash {
  using is_transparent = void;
  template <typename K>
  std::size_t operator()(const K& key) const noexcept {
    const QueueKeyView v = view(key);
    return std::hash<std::string_view>{}(v.topic) * 31 + static_cast<std::uint32_t>(v.queue_id);
  }
};

struct Equal {
  using is_transparent = void;
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const noexcept {
    const QueueKeyView x = view(a);
    const QueueKeyView y = view(b);
    return x.queue_id == y.queue_id && x.topic == y.topic;
  }
};
}  // namespace queue_key_detail

template <typename Value>
using QueueMap = std::unordered_map<QueueKey, Value, queue_key_detail::Hash, queue_key_detail::Equal>;

}  // namespace mqkit::plugins::stores::commitlog
