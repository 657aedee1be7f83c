// OutgoingMessage: a message the broker is about to store, whoever built it — a producer's send,
// a consumer's send-back, or the delivery of a delayed message. Its body is a StoredSlice so
// that request bodies and stored records travel to the store without a copy.
//
// Threads: a plain value; each instance belongs to the request (or timer tick) that built it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "mqkit/plugin/v1/buffer.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/plugin/v1/store.hpp"

namespace mqkit::broker {

struct OutgoingMessage {
  std::string topic;
  std::int32_t queue_id = 0;
  std::int32_t flag = 0;
  std::int32_t sys_flag = 0;
  std::int64_t born_timestamp = 0;
  plugin::v1::HostAddress born_host{};
  std::int32_t reconsume_times = 0;
  std::int64_t prepared_transaction_offset = 0;  // a committed transaction's half message
  plugin::v1::StoredSlice body{};  // the bytes, and whatever keeps them alive until stored
  plugin::v1::Properties properties;
};

// A stored record as a message to store again (a retry copy, a delivered delayed message): its
// topic, queue, flags, born host and time, reconsume times, properties, and its body, kept
// alive by `keep_alive` (the owner of the record's bytes).
OutgoingMessage copy_of(const plugin::v1::RecordView& record, std::shared_ptr<const void> keep_alive);

// Property edits on the ordered list; a name appears at most once, and set() keeps its place.
std::optional<std::string_view> get_property(const plugin::v1::Properties& properties, std::string_view name);
void set_property(plugin::v1::Properties& properties, std::string_view name, std::string value);
void erase_property(plugin::v1::Properties& properties, std::string_view name);
// A property holding a decimal integer; nullopt when absent or not a number.
std::optional<std::int64_t> integer_property(const plugin::v1::Properties& properties, std::string_view name);
// Where a parked message (delayed, or a transaction's half message) belongs: its REAL_TOPIC and
// REAL_QID; nullopt when either is missing or the queue is not a number.
struct RealDestination {
  std::string topic;
  std::int32_t queue_id = 0;
};
std::optional<RealDestination> real_destination_of(const plugin::v1::Properties& properties);
// The DELAY property as a number; 0 when absent or not a number.
std::int32_t delay_level_of(const plugin::v1::Properties& properties);
std::int32_t delay_level_of(std::string_view encoded_properties);

}  // namespace mqkit::broker
