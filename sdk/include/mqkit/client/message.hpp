// Message: what an application sends (RocketMQ's Message): topic, body, user flag and string
// properties, with typed access to the properties RocketMQ gives meaning to (tags, keys, delay
// level, delivery time, wait-for-store).
//
// A value type; not synchronized. Sending moves it into the producer, so pass it with std::move
// to avoid copying a large body.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/client/types.hpp"

namespace mqkit::client {

class Message {
 public:
  using PropertyMap = std::map<std::string, std::string, std::less<>>;

  Message() = default;
  Message(std::string topic, std::string body);
  Message(std::string topic, std::string tags, std::string body);
  Message(std::string topic, std::string tags, std::string keys, std::string body);

  const std::string& topic() const noexcept { return topic_; }
  void set_topic(std::string topic) { topic_ = std::move(topic); }

  const std::string& body() const noexcept { return body_; }
  void set_body(std::string body) { body_ = std::move(body); }
  std::string release_body() { return std::move(body_); }

  std::int32_t flag() const noexcept { return flag_; }
  void set_flag(std::int32_t flag) noexcept { flag_ = flag; }

  // TAGS: one tag; consumers filter on it. Empty when none.
  std::string_view tags() const;
  void set_tags(std::string tags);
  // KEYS: business keys, space separated, each indexed by the broker for queries.
  std::string_view keys() const;
  void set_keys(std::string keys);
  void set_keys(const std::vector<std::string>& keys);
  // DELAY: delay level 1..18 (1s 5s 10s 30s 1m ... 2h); 0 = deliver now.
  int delay_time_level() const;
  void set_delay_time_level(int level);
  // RocketMQ 5 timer messages (docs/timer-messages.md): deliver at an epoch time in milliseconds
  // (TIMER_DELIVER_MS), or that long after the broker takes the message (TIMER_DELAY_SEC,
  // TIMER_DELAY_MS). Setting one removes the other two; 0 or less removes it. The broker refuses
  // a time further away than its timer_max_delay_sec (3 days by default) with MESSAGE_ILLEGAL,
  // rounds it down to its timer_precision_ms (1 s), and delivers a time already past at once.
  // A message with a delivery time cannot also have a delay level, nor go in a batch. Getters
  // answer 0 when the property is absent or not a number.
  std::int64_t deliver_time_ms() const;
  void set_deliver_time_ms(std::int64_t epoch_ms);
  std::int64_t delay_time_sec() const;
  void set_delay_time_sec(std::int64_t seconds);
  std::int64_t delay_time_ms() const;
  void set_delay_time_ms(std::int64_t milliseconds);
  // Whether any of the three is set.
  bool has_delivery_time() const;
  // WAIT: whether the broker answers only after the flush/replication it is configured for.
  bool wait_store_msg_ok() const;
  void set_wait_store_msg_ok(bool wait);
  // UNIQ_KEY: set by the producer when sending (empty before).
  std::string_view unique_id() const;

  std::optional<std::string_view> property(std::string_view name) const;
  // Any property, system ones included; the SDK and tools use it, applications prefer
  // put_user_property.
  void set_property(std::string name, std::string value);
  void clear_property(std::string_view name);
  // A user property. InvalidArgument for an empty name or value, or a name RocketMQ reserves.
  Status put_user_property(std::string name, std::string value);
  const PropertyMap& properties() const noexcept { return properties_; }
  // Replaces every property at once (decoders build the whole map, then move it in).
  void set_properties(PropertyMap properties) noexcept { properties_ = std::move(properties); }

 private:
  std::int64_t int64_property(std::string_view name) const;
  void set_delivery_property(std::string_view name, std::int64_t value);

  std::string topic_{};
  std::string body_{};
  std::int32_t flag_ = 0;
  PropertyMap properties_{};
};

// Whether RocketMQ reserves `name` for itself (MessageConst.STRING_HASH_SET).
bool is_system_property(std::string_view name);

}  // namespace mqkit::client
