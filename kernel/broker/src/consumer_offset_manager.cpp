#include "mqkit/broker/consumer_offset_manager.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <charconv>

#include "mqkit/protocol/bodies.hpp"

namespace mqkit::broker {

using plugin::v1::Result;
using plugin::v1::Status;

namespace {
constexpr const char* kFileName = "consumerOffset.json";
}

Status ConsumerOffsetManager::load() {
  auto text = files_.load(kFileName);
  if (!text) return text.status().with_context("loading consumer offsets");
  if (!text->has_value()) return Status::ok();
  auto loaded = decode(**text);
  if (!loaded) return Status::corruption(std::string(kFileName) + ": " + loaded.status().message());
  std::lock_guard lock(mutex_);
  table_ = std::move(*loaded);
  return Status::ok();
}

Result<ConsumerOffsetManager::Table> ConsumerOffsetManager::decode(std::string_view text) {
  // RocketMQ writes the queue ids as bare numbers; normalize first.
  const std::string json = protocol::quote_bare_keys(text);
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(json.c_str());
  const auto invalid = [] { return Status::invalid_argument("not a valid consumer offset table"); };
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("offsetTable") || !doc["offsetTable"].IsObject()) {
    return invalid();
  }
  Table table;
  for (const auto& entry : doc["offsetTable"].GetObject()) {
    if (!entry.value.IsObject()) return invalid();
    auto& queues = table[entry.name.GetString()];
    for (const auto& q : entry.value.GetObject()) {
      std::int32_t queue_id = 0;
      const std::string_view k(q.name.GetString(), q.name.GetStringLength());
      auto [ptr, ec] = std::from_chars(k.data(), k.data() + k.size(), queue_id);
      if (ec != std::errc() || ptr != k.data() + k.size() || !q.value.IsInt64()) return invalid();
      queues[queue_id] = q.value.GetInt64();
    }
  }
  return table;
}

std::string ConsumerOffsetManager::encode() const {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  std::lock_guard lock(mutex_);
  w.StartObject();
  w.Key("offsetTable");
  w.StartObject();
  for (const auto& [k, queues] : table_) {
    w.Key(k.c_str());
    w.StartObject();
    for (const auto& [q, offset] : queues) {
      w.Key(std::to_string(q).c_str());
      w.Int64(offset);
    }
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

Status ConsumerOffsetManager::persist() const { return files_.save(kFileName, encode()); }

Status ConsumerOffsetManager::merge_from_master(Table master) {
  {
    std::lock_guard lock(mutex_);
    for (auto& [k, queues] : master) table_[k] = std::move(queues);
  }
  return persist();
}

void ConsumerOffsetManager::commit(const std::string& group, const std::string& topic, std::int32_t queue_id,
                                   std::int64_t offset) {
  std::lock_guard lock(mutex_);
  table_[key(group, topic)][queue_id] = offset;
}

std::optional<std::int64_t> ConsumerOffsetManager::query(const std::string& group, const std::string& topic,
                                                         std::int32_t queue_id) const {
  std::lock_guard lock(mutex_);
  auto t = table_.find(key(group, topic));
  if (t == table_.end()) return std::nullopt;
  auto q = t->second.find(queue_id);
  if (q == t->second.end()) return std::nullopt;
  return q->second;
}

std::map<std::int32_t, std::int64_t> ConsumerOffsetManager::offsets(const std::string& group,
                                                                    const std::string& topic) const {
  std::lock_guard lock(mutex_);
  auto t = table_.find(key(group, topic));
  return t == table_.end() ? std::map<std::int32_t, std::int64_t>{} : t->second;
}

std::set<std::string> ConsumerOffsetManager::topics_of_group(const std::string& group) const {
  std::lock_guard lock(mutex_);
  std::set<std::string> out;
  const std::string suffix = "@" + group;
  for (const auto& [k, queues] : table_) {
    if (k.size() > suffix.size() && k.ends_with(suffix)) out.insert(k.substr(0, k.size() - suffix.size()));
  }
  return out;
}

std::set<std::string> ConsumerOffsetManager::groups_of_topic(const std::string& topic) const {
  std::lock_guard lock(mutex_);
  std::set<std::string> out;
  const std::string prefix = topic + "@";
  for (const auto& [k, queues] : table_) {
    if (k.starts_with(prefix)) out.insert(k.substr(prefix.size()));
  }
  return out;
}

void ConsumerOffsetManager::remove_topic(const std::string& topic) {
  std::lock_guard lock(mutex_);
  const std::string prefix = topic + "@";
  std::erase_if(table_, [&](const auto& entry) { return entry.first.starts_with(prefix); });
}

void ConsumerOffsetManager::remove_group(const std::string& group) {
  std::lock_guard lock(mutex_);
  const std::string suffix = "@" + group;
  std::erase_if(table_, [&](const auto& entry) { return entry.first.ends_with(suffix); });
}

}  // namespace mqkit::broker
