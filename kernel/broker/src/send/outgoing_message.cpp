#include "mqkit/broker/send/outgoing_message.hpp"

#include <algorithm>
#include <charconv>

namespace mqkit::broker {

using plugin::v1::Properties;

namespace {
auto find(Properties& properties, std::string_view name) {
  return std::find_if(properties.begin(), properties.end(), [&](const auto& p) { return p.first == name; });
}
template <typename Integer>
std::optional<Integer> parse_integer(std::optional<std::string_view> text) {
  if (!text) return std::nullopt;
  Integer value = 0;
  const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (error != std::errc() || end != text->data() + text->size()) return std::nullopt;
  return value;
}
std::int32_t parse_level(std::optional<std::string_view> text) { return parse_integer<std::int32_t>(text).value_or(0); }

}  // namespace

OutgoingMessage copy_of(const plugin::v1::RecordView& record, std::shared_ptr<const void> keep_alive) {
  OutgoingMessage m;
  m.topic = std::string(record.topic);
  m.queue_id = record.queue_id;
  m.flag = record.flag;
  m.sys_flag = record.sys_flag;
  m.born_timestamp = record.born_timestamp;
  m.born_host = record.born_host;
  m.reconsume_times = record.reconsume_times;
  m.body = {record.body, std::move(keep_alive)};
  m.properties = plugin::v1::decode_properties(record.properties);
  return m;
}

std::optional<std::string_view> get_property(const Properties& properties, std::string_view name) {
  for (const auto& [key, value] : properties) {
    if (key == name) return std::string_view(value);
  }
  return std::nullopt;
}

void set_property(Properties& properties, std::string_view name, std::string value) {
  if (auto it = find(properties, name); it != properties.end()) {
    it->second = std::move(value);
  } else {
    properties.emplace_back(std::string(name), std::move(value));
  }
}

void erase_property(Properties& properties, std::string_view name) {
  std::erase_if(properties, [&](const auto& p) { return p.first == name; });
}

std::optional<std::int64_t> integer_property(const Properties& properties, std::string_view name) {
  return parse_integer<std::int64_t>(get_property(properties, name));
}

std::optional<RealDestination> real_destination_of(const Properties& properties) {
  const auto topic = get_property(properties, plugin::v1::property::kRealTopic);
  const auto queue_id = parse_integer<std::int32_t>(get_property(properties, plugin::v1::property::kRealQueueId));
  if (!topic || !queue_id) return std::nullopt;
  return RealDestination{std::string(*topic), *queue_id};
}

std::int32_t delay_level_of(const Properties& properties) {
  return parse_level(get_property(properties, plugin::v1::property::kDelayLevel));
}

std::int32_t delay_level_of(std::string_view encoded_properties) {
  return parse_level(plugin::v1::find_property(encoded_properties, plugin::v1::property::kDelayLevel));
}

}  // namespace mqkit::broker
