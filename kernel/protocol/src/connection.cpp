#include "mqkit/protocol/connection.hpp"

#include <array>

#include "body_codec.hpp"
#include "mqkit/protocol/json_writer.hpp"

namespace mqkit::protocol {

using plugin::v1::Result;
using plugin::v1::Status;

namespace {

using detail::Fields;
using detail::Value;
using json::key;
using json::str;
using json::write_json;
using json::Writer;

void write(Writer& w, const Connection& c) {
  w.StartObject();
  key(w, "clientAddr"), str(w, c.client_addr);
  key(w, "clientId"), str(w, c.client_id);
  key(w, "language"), str(w, c.language);
  key(w, "version"), w.Int(c.version);
  w.EndObject();
}

void write_connection_set(Writer& w, const std::vector<Connection>& connections) {
  key(w, "connectionSet"), w.StartArray();
  for (const auto& c : connections) write(w, c);
  w.EndArray();
}

Status read_connection_set(const Fields& f, std::vector<Connection>& out) {
  return f.each("connectionSet", out, [](const Value& item, std::vector<Connection>& set) {
    if (!item.IsObject()) return Status::invalid_argument("Connection must be an object");
    Connection c;
    Fields cf(item, "Connection");
    MQKIT_RETURN_IF_ERROR(cf.get("clientId", c.client_id));
    MQKIT_RETURN_IF_ERROR(cf.get("clientAddr", c.client_addr));
    MQKIT_RETURN_IF_ERROR(cf.get("language", c.language));
    MQKIT_RETURN_IF_ERROR(cf.get("version", c.version));
    set.push_back(std::move(c));
    return Status::ok();
  });
}

}  // namespace

std::string encode(const ConsumerConnection& c) {
  return write_json([&](Writer& w) {
    w.StartObject();
    write_connection_set(w, c.connection_set);
    key(w, "consumeFromWhere"), str(w, c.consume_from_where);
    key(w, "consumeType"), str(w, c.consume_type);
    key(w, "messageModel"), str(w, c.message_model);
    key(w, "subscriptionTable"), w.StartObject();
    for (const auto& [topic, subscription] : c.subscription_table) key(w, topic), detail::write(w, subscription);
    w.EndObject();
    w.EndObject();
  });
}

std::string encode(const ProducerConnection& p) {
  return write_json([&](Writer& w) {
    w.StartObject();
    write_connection_set(w, p.connection_set);
    w.EndObject();
  });
}

Result<ConsumerConnection> decode_consumer_connection(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, detail::parse(json, "ConsumerConnection"));
  ConsumerConnection c;
  Fields f(doc, "ConsumerConnection");
  MQKIT_RETURN_IF_ERROR(read_connection_set(f, c.connection_set));
  MQKIT_RETURN_IF_ERROR(f.get("consumeType", c.consume_type));
  MQKIT_RETURN_IF_ERROR(f.get("messageModel", c.message_model));
  MQKIT_RETURN_IF_ERROR(f.get("consumeFromWhere", c.consume_from_where));
  Status error;
  if (const Value* table = f.object("subscriptionTable", error)) {
    for (const auto& m : table->GetObject()) {
      MQKIT_ASSIGN_OR_RETURN(SubscriptionData s, detail::read_subscription(m.value));
      std::string topic(m.name.GetString(), m.name.GetStringLength());
      // The table is keyed by topic; a subscription that leaves its topic out takes the key.
      if (s.topic.empty()) s.topic = topic;
      c.subscription_table[std::move(topic)] = std::move(s);
    }
  }
  MQKIT_RETURN_IF_ERROR(error);
  return c;
}

Result<ProducerConnection> decode_producer_connection(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, detail::parse(json, "ProducerConnection"));
  ProducerConnection p;
  MQKIT_RETURN_IF_ERROR(read_connection_set(Fields(doc, "ProducerConnection"), p.connection_set));
  return p;
}

std::string encode(const ProducerTableInfo& table) {
  return write_json([&](Writer& w) {
    w.StartObject();
    key(w, "data"), w.StartObject();
    for (const auto& [group, producers] : table.data) {
      key(w, group), w.StartArray();
      for (const ProducerInfo& p : producers) {
        w.StartObject();
        key(w, "clientId"), str(w, p.client_id);
        key(w, "language"), str(w, p.language);
        key(w, "lastUpdateTimestamp"), w.Int64(p.last_update_timestamp);
        key(w, "remoteIP"), str(w, p.remote_ip);
        key(w, "version"), w.Int(p.version);
        w.EndObject();
      }
      w.EndArray();
    }
    w.EndObject();
    w.EndObject();
  });
}

Result<ProducerTableInfo> decode_producer_table_info(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, detail::parse(json, "ProducerTableInfo"));
  ProducerTableInfo table;
  Status error;
  if (const Value* data = Fields(doc, "ProducerTableInfo").object("data", error)) {
    for (const auto& group : data->GetObject()) {
      if (!group.value.IsArray()) return detail::wrong("ProducerTableInfo.data", group.name.GetString(), "an array");
      auto& producers = table.data[std::string(group.name.GetString(), group.name.GetStringLength())];
      for (const auto& item : group.value.GetArray()) {
        if (!item.IsObject()) return Status::invalid_argument("ProducerTableInfo: a producer must be an object");
        Fields pf(item, "ProducerInfo");
        ProducerInfo p;
        MQKIT_RETURN_IF_ERROR(pf.get("clientId", p.client_id));
        MQKIT_RETURN_IF_ERROR(pf.get("remoteIP", p.remote_ip));
        MQKIT_RETURN_IF_ERROR(pf.get("language", p.language));
        MQKIT_RETURN_IF_ERROR(pf.get("version", p.version));
        MQKIT_RETURN_IF_ERROR(pf.get("lastUpdateTimestamp", p.last_update_timestamp));
        producers.push_back(std::move(p));
      }
    }
  }
  MQKIT_RETURN_IF_ERROR(error);
  return table;
}

std::string to_string(const ProducerInfo& p) {
  return "clientId=" + p.client_id + ",remoteIP=" + p.remote_ip + ", language=" + p.language +
         ", version=" + std::to_string(p.version) + ", lastUpdateTimestamp=" + std::to_string(p.last_update_timestamp);
}

std::string version_desc(std::int32_t version) {
  // MQVersion.Version opens with the 3.0.0 pre-releases ...
  static constexpr std::array<std::string_view, 16> kFirst = {
      "V3_0_0_SNAPSHOT",       "V3_0_0_ALPHA1", "V3_0_0_BETA1",          "V3_0_0_BETA2",
      "V3_0_0_BETA3",          "V3_0_0_BETA4",  "V3_0_0_BETA5",          "V3_0_0_BETA6_SNAPSHOT",
      "V3_0_0_BETA6",          "V3_0_0_BETA7_SNAPSHOT", "V3_0_0_BETA7", "V3_0_0_BETA8_SNAPSHOT",
      "V3_0_0_BETA8",          "V3_0_0_BETA9_SNAPSHOT", "V3_0_0_BETA9", "V3_0_0_FINAL"};
  // ... then lists every release x_y_z, each after its x_y_z_SNAPSHOT: patches 1-15 of 3.0,
  // 0-9 of 3.1 and 3.2, 1-9 of 3.3 to 3.9, 0-9 of every 4.y and 5.y (the last is V5_9_9).
  struct Minor {
    int major, minor, first_patch, last_patch;
  };
  static const std::vector<Minor> kMinors = [] {
    std::vector<Minor> minors = {{3, 0, 1, 15}, {3, 1, 0, 9}, {3, 2, 0, 9}};
    for (int minor = 3; minor <= 9; ++minor) minors.push_back({3, minor, 1, 9});
    for (int major = 4; major <= 5; ++major) {
      for (int minor = 0; minor <= 9; ++minor) minors.push_back({major, minor, 0, 9});
    }
    return minors;
  }();
  if (version < 0) return std::to_string(version);
  if (version < static_cast<std::int32_t>(kFirst.size())) return std::string(kFirst[static_cast<std::size_t>(version)]);
  std::int32_t index = version - static_cast<std::int32_t>(kFirst.size());
  for (const auto& m : kMinors) {
    const std::int32_t entries = 2 * (m.last_patch - m.first_patch + 1);
    if (index < entries) {
      const std::string name = "V" + std::to_string(m.major) + "_" + std::to_string(m.minor) + "_" +
                               std::to_string(m.first_patch + index / 2);
      return index % 2 == 0 ? name + "_SNAPSHOT" : name;
    }
    index -= entries;
  }
  return "V5_9_9";
}

}  // namespace mqkit::protocol
