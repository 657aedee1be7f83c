#include "mqkit/protocol/subscription_group.hpp"

#include <rapidjson/document.h>

#include <charconv>
#include <type_traits>
#include <utility>

#include "mqkit/protocol/json_writer.hpp"

namespace mqkit::protocol {

using plugin::v1::Result;
using plugin::v1::Status;

namespace {

using json::key;
using json::write_json;
using json::Writer;

void write(Writer& w, const SubscriptionGroupConfig& g) {
  w.StartObject();
  key(w, "brokerId"), w.Int64(g.broker_id);
  key(w, "consumeBroadcastEnable"), w.Bool(g.consume_broadcast_enable);
  key(w, "consumeEnable"), w.Bool(g.consume_enable);
  key(w, "consumeFromMinEnable"), w.Bool(g.consume_from_min_enable);
  key(w, "consumeMessageOrderly"), w.Bool(g.consume_message_orderly);
  key(w, "groupName"), json::str(w, g.group_name);
  key(w, "notifyConsumerIdsChangedEnable"), w.Bool(g.notify_consumer_ids_changed_enable);
  key(w, "retryMaxTimes"), w.Int(g.retry_max_times);
  key(w, "retryQueueNums"), w.Int(g.retry_queue_nums);
  key(w, "whichBrokerWhenConsumeSlowly"), w.Int64(g.which_broker_when_consume_slowly);
  w.EndObject();
}

// Converts one JSON value; false when it has the wrong type. Numbers may come as strings.
template <typename T>
bool convert(const rapidjson::Value& v, T& out) {
  if constexpr (std::is_same_v<T, bool>) {
    if (v.IsBool()) {
      out = v.GetBool();
      return true;
    }
    if (!v.IsString()) return false;
    out = std::string_view(v.GetString()) == "true";
    return true;
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!v.IsString()) return false;
    out.assign(v.GetString(), v.GetStringLength());
    return true;
  } else {
    if (v.IsInt64()) {
      // A value the field cannot hold is refused, not wrapped (2^32 + 1 retry queues is not 1).
      if (!std::in_range<T>(v.GetInt64())) return false;
      out = static_cast<T>(v.GetInt64());
      return true;
    }
    if (!v.IsString()) return false;
    const std::string_view s(v.GetString(), v.GetStringLength());
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && ptr == s.data() + s.size();
  }
}

// Reads an optional member: absent or null keeps `out`.
template <typename T>
Status read(const rapidjson::Value& object, const char* name, T& out) {
  const auto it = object.FindMember(name);
  if (it == object.MemberEnd() || it->value.IsNull() || convert(it->value, out)) return Status::ok();
  return Status::invalid_argument(std::string("SubscriptionGroupConfig: field '") + name + "' has the wrong type");
}

// A group in a table may leave its name out (RocketMQ's wrapper keys groups by name): it takes
// `table_key` then.
Result<SubscriptionGroupConfig> read_group(const rapidjson::Value& object, std::string_view table_key = {}) {
  if (!object.IsObject()) return Status::invalid_argument("SubscriptionGroupConfig is not a JSON object");
  SubscriptionGroupConfig g;
  MQKIT_RETURN_IF_ERROR(read(object, "groupName", g.group_name));
  MQKIT_RETURN_IF_ERROR(read(object, "consumeEnable", g.consume_enable));
  MQKIT_RETURN_IF_ERROR(read(object, "consumeFromMinEnable", g.consume_from_min_enable));
  MQKIT_RETURN_IF_ERROR(read(object, "consumeBroadcastEnable", g.consume_broadcast_enable));
  MQKIT_RETURN_IF_ERROR(read(object, "retryQueueNums", g.retry_queue_nums));
  MQKIT_RETURN_IF_ERROR(read(object, "retryMaxTimes", g.retry_max_times));
  MQKIT_RETURN_IF_ERROR(read(object, "brokerId", g.broker_id));
  MQKIT_RETURN_IF_ERROR(read(object, "whichBrokerWhenConsumeSlowly", g.which_broker_when_consume_slowly));
  MQKIT_RETURN_IF_ERROR(read(object, "notifyConsumerIdsChangedEnable", g.notify_consumer_ids_changed_enable));
  MQKIT_RETURN_IF_ERROR(read(object, "consumeMessageOrderly", g.consume_message_orderly));
  if (g.group_name.empty()) g.group_name = table_key;
  if (g.group_name.empty()) return Status::invalid_argument("SubscriptionGroupConfig: groupName is missing");
  return g;
}

Result<rapidjson::Document> parse_object(std::string_view json, const char* what) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) return Status::invalid_argument(std::string(what) + " is not a JSON object");
  return doc;
}

}  // namespace

std::string encode_subscription_group(const SubscriptionGroupConfig& group) {
  return write_json([&](Writer& w) { write(w, group); });
}

Result<SubscriptionGroupConfig> decode_subscription_group(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, parse_object(json, "SubscriptionGroupConfig"));
  return read_group(doc);
}

std::string encode_subscription_group_list(const std::vector<SubscriptionGroupConfig>& groups) {
  return write_json([&](Writer& w) {
    w.StartObject();
    key(w, "groupConfigList"), w.StartArray();
    for (const auto& group : groups) write(w, group);
    w.EndArray();
    w.EndObject();
  });
}

Result<std::vector<SubscriptionGroupConfig>> decode_subscription_group_list(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, parse_object(json, "SubscriptionGroupList"));
  std::vector<SubscriptionGroupConfig> groups;
  const auto list = doc.FindMember("groupConfigList");
  if (list == doc.MemberEnd() || list->value.IsNull()) return groups;
  if (!list->value.IsArray()) return Status::invalid_argument("SubscriptionGroupList: groupConfigList is not an array");
  for (const auto& item : list->value.GetArray()) {
    MQKIT_ASSIGN_OR_RETURN(auto group, read_group(item));
    groups.push_back(std::move(group));
  }
  return groups;
}

std::string encode_subscription_group_table(const std::map<std::string, SubscriptionGroupConfig>& groups) {
  return write_json([&](Writer& w) {
    w.StartObject();
    key(w, "subscriptionGroupTable"), w.StartObject();
    for (const auto& [name, group] : groups) key(w, name), write(w, group);
    w.EndObject();
    w.EndObject();
  });
}

Result<std::map<std::string, SubscriptionGroupConfig>> decode_subscription_group_table(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, parse_object(json, "SubscriptionGroupWrapper"));
  std::map<std::string, SubscriptionGroupConfig> groups;
  const auto table = doc.FindMember("subscriptionGroupTable");
  if (table == doc.MemberEnd() || table->value.IsNull()) return groups;
  if (!table->value.IsObject()) {
    return Status::invalid_argument("SubscriptionGroupWrapper: subscriptionGroupTable is not an object");
  }
  for (const auto& member : table->value.GetObject()) {
    const std::string_view name(member.name.GetString(), member.name.GetStringLength());
    MQKIT_ASSIGN_OR_RETURN(auto group, read_group(member.value, name));
    groups.emplace(name, std::move(group));
  }
  return groups;
}

}  // namespace mqkit::protocol
