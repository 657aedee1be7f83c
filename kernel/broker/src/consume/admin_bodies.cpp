#include "mqkit/broker/consume/admin_bodies.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <utility>

#include "mqkit/protocol/bodies.hpp"
#include "mqkit/protocol/json_writer.hpp"

namespace mqkit::broker {

using plugin::v1::Result;
using plugin::v1::Status;

namespace {

using protocol::json::key;
using protocol::json::str;
using protocol::json::write_json;
using protocol::json::Writer;

void write(Writer& w, const plugin::v1::MessageQueue& q) {
  w.StartObject();
  key(w, "brokerName"), str(w, q.broker_name);
  key(w, "queueId"), w.Int(q.queue_id);
  key(w, "topic"), str(w, q.topic);
  w.EndObject();
}

}  // namespace

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
