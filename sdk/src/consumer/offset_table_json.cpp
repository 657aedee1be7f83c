#include "offset_table_json.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace mqkit::client {

Result<std::map<MessageQueue, std::int64_t>> decode_offset_table(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(text.data(), text.size());
  if (doc.HasParseError() || !doc.IsObject()) return Status::corruption("not a JSON object");
  const auto table = doc.FindMember("offsetTable");
  if (table == doc.MemberEnd() || !table->value.IsArray()) return Status::corruption("no offsetTable array");
  std::map<MessageQueue, std::int64_t> out;
  for (const auto& item : table->value.GetArray()) {
    if (!item.IsObject() || !item.HasMember("topic") || !item["topic"].IsString() || !item.HasMember("brokerName") ||
        !item["brokerName"].IsString() || !item.HasMember("queueId") || !item["queueId"].IsInt() ||
        !item.HasMember("offset") || !item["offset"].IsInt64()) {
      return Status::corruption("an offsetTable entry lacks topic, brokerName, queueId or offset");
    }
    out[MessageQueue{item["topic"].GetString(), item["brokerName"].GetString(), item["queueId"].GetInt()}] =
        item["offset"].GetInt64();
  }
  return out;
}

std::string encode_offset_table(const std::map<MessageQueue, std::int64_t>& offsets) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("offsetTable");
  w.StartArray();
  for (const auto& [queue, offset] : offsets) {
    w.StartObject();
    w.Key("topic");
    w.String(queue.topic.c_str(), static_cast<rapidjson::SizeType>(queue.topic.size()));
    w.Key("brokerName");
    w.String(queue.broker_name.c_str(), static_cast<rapidjson::SizeType>(queue.broker_name.size()));
    w.Key("queueId");
    w.Int(queue.queue_id);
    w.Key("offset");
    w.Int64(offset);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace mqkit::client
