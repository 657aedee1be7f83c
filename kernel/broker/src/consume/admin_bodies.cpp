#include "mqkit/broker/consume/admin_bodies.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <utility>

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

}  // namespace mqkit::broker
