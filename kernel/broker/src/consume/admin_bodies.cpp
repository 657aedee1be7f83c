#include "mqkit/broker/consume/admin_bodies.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <charconv>
#include <type_traits>
#include <utility>

#include "mqkit/protocol/bodies.hpp"

namespace mqkit::broker {

using plugin::v1::Result;
using plugin::v1::Status;

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void key(Writer& w, std::string_view k) { w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size())); }
void str(Writer& w, std::string_view s) { w.String(s.data(), static_cast<rapidjson::SizeType>(s.size())); }

template <typename F>
std::string write_json(F&& body) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  body(w);
  return {buffer.GetString(), buffer.GetSize()};
}

void write(Writer& w, const SubscriptionGroupConfig& g) {
  w.StartObject();
  key(w, "brokerId"), w.Int64(g.broker_id);
  key(w, "consumeBroadcastEnable"), w.Bool(g.consume_broadcast_enable);
  key(w, "consumeEnable"), w.Bool(g.consume_enable);
  key(w, "consumeFromMinEnable"), w.Bool(g.consume_from_min_enable);
  key(w, "groupName"), str(w, g.group_name);
  key(w, "notifyConsumerIdsChangedEnable"), w.Bool(g.notify_consumer_ids_changed_enable);
  key(w, "retryMaxTimes"), w.Int(g.retry_max_times);
  key(w, "retryQueueNums"), w.Int(g.retry_queue_nums);
  key(w, "whichBrokerWhenConsumeSlowly"), w.Int64(g.which_broker_when_consume_slowly);
  w.EndObject();
}

void write(Writer& w, const plugin::v1::MessageQueue& q) {
  w.StartObject();
  key(w, "brokerName"), str(w, q.broker_name);
  key(w, "queueId"), w.Int(q.queue_id);
  key(w, "topic"), str(w, q.topic);
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

Result<SubscriptionGroupConfig> read_subscription_group(const rapidjson::Value& object) {
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
  return g;
}

}  // namespace

std::string encode_subscription_group(const SubscriptionGroupConfig& group) {
  return write_json([&](Writer& w) { write(w, group); });
}

Result<SubscriptionGroupConfig> decode_subscription_group(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return Status::invalid_argument("SubscriptionGroupConfig is not a JSON object");
  }
  MQKIT_ASSIGN_OR_RETURN(auto g, read_subscription_group(doc));
  if (g.group_name.empty()) return Status::invalid_argument("SubscriptionGroupConfig: groupName is missing");
  return g;
}

Result<std::map<std::string, SubscriptionGroupConfig>> decode_subscription_group_table(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("subscriptionGroupTable") ||
      !doc["subscriptionGroupTable"].IsObject()) {
    return Status::invalid_argument("SubscriptionGroupWrapper has no subscriptionGroupTable object");
  }
  std::map<std::string, SubscriptionGroupConfig> groups;
  for (const auto& entry : doc["subscriptionGroupTable"].GetObject()) {
    if (!entry.value.IsObject()) return Status::invalid_argument("SubscriptionGroupWrapper: a group is not an object");
    MQKIT_ASSIGN_OR_RETURN(auto g, read_subscription_group(entry.value));
    if (g.group_name.empty()) g.group_name.assign(entry.name.GetString(), entry.name.GetStringLength());
    groups[std::string(entry.name.GetString(), entry.name.GetStringLength())] = std::move(g);
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

std::string encode_reset_offset_body(const std::map<plugin::v1::MessageQueue, std::int64_t>& offsets,
                                     plugin::v1::LanguageCode language) {
  if (language == plugin::v1::LanguageCode::kCpp) {
    return write_json([&](Writer& w) {
      w.StartObject();
      key(w, "offsetTable"), w.StartArray();
      for (const auto& [q, offset] : offsets) {
        w.StartObject();
        key(w, "brokerName"), str(w, q.broker_name);
        key(w, "offset"), w.Int64(offset);
        key(w, "queueId"), w.Int(q.queue_id);
        key(w, "topic"), str(w, q.topic);
        w.EndObject();
      }
      w.EndArray();
      w.EndObject();
    });
  }
  // fastjson writes a map keyed by objects with the object itself as the key; no JSON writer
  // does that, so the map is assembled around individually written queues.
  std::string out = "{\"offsetTable\":{";
  bool first = true;
  for (const auto& [q, offset] : offsets) {
    if (!first) out += ',';
    first = false;
    out += write_json([&](Writer& w) { write(w, q); });
    out += ':' + std::to_string(offset);
  }
  out += "}}";
  return out;
}

std::string encode_consumer_connection(const ConsumerGroupInfo& group) {
  // The subscriptions are written by protocol's heartbeat encoder, so their field spellings
  // live in one place; they are lifted out of its output into subscriptionTable.
  protocol::HeartbeatData carrier;
  carrier.consumer_data_set.emplace_back();
  for (const auto& [topic, s] : group.subscriptions) carrier.consumer_data_set[0].subscription_data_set.push_back(s);
  rapidjson::Document doc;
  doc.Parse(protocol::encode(carrier).c_str());
  const rapidjson::Value& subscriptions = doc["consumerDataSet"][0]["subscriptionDataSet"];

  return write_json([&](Writer& w) {
    w.StartObject();
    key(w, "connectionSet"), w.StartArray();
    for (const auto& [id, c] : group.connections) {
      w.StartObject();
      key(w, "clientAddr"), str(w, c.channel ? c.channel->remote_address() : std::string());
      key(w, "clientId"), str(w, c.client_id);
      key(w, "language"), str(w, plugin::v1::to_string(c.language));
      key(w, "version"), w.Int(c.version);
      w.EndObject();
    }
    w.EndArray();
    key(w, "consumeFromWhere"), str(w, group.consume_from_where);
    key(w, "consumeType"), str(w, group.consume_type);
    key(w, "messageModel"), str(w, group.message_model);
    key(w, "subscriptionTable"), w.StartObject();
    for (const auto& s : subscriptions.GetArray()) {
      key(w, s["topic"].GetString());
      s.Accept(w);
    }
    w.EndObject();
    w.EndObject();
  });
}

}  // namespace mqkit::broker
