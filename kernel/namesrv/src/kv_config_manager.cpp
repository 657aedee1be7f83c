#include "mqkit/namesrv/kv_config_manager.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "mqkit/kernel/atomic_file.hpp"

namespace mqkit::namesrv {

using plugin::v1::Status;

Status KvConfigManager::load() {
  if (file_.empty()) return Status::ok();
  auto text = kernel::read_file_with_backup(file_);
  if (!text) return text.status();
  if (!text->has_value()) return Status::ok();
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>((*text)->c_str());
  const auto corrupt = [&] { return Status::corruption("KV config file " + file_.string() + " is not valid"); };
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("configTable") || !doc["configTable"].IsObject()) {
    return corrupt();
  }
  std::lock_guard lock(mutex_);
  for (const auto& ns : doc["configTable"].GetObject()) {
    if (!ns.value.IsObject()) return corrupt();
    for (const auto& kv : ns.value.GetObject()) {
      if (!kv.value.IsString()) return corrupt();
      table_[ns.name.GetString()][kv.name.GetString()] = kv.value.GetString();
    }
  }
  return Status::ok();
}

Status KvConfigManager::put(const std::string& ns, const std::string& key, const std::string& value) {
  std::lock_guard lock(mutex_);
  table_[ns][key] = value;
  return persist_locked();
}

std::optional<std::string> KvConfigManager::get(const std::string& ns, const std::string& key) const {
  std::lock_guard lock(mutex_);
  auto n = table_.find(ns);
  if (n == table_.end()) return std::nullopt;
  auto k = n->second.find(key);
  if (k == n->second.end()) return std::nullopt;
  return k->second;
}

Status KvConfigManager::remove(const std::string& ns, const std::string& key) {
  std::lock_guard lock(mutex_);
  auto n = table_.find(ns);
  if (n == table_.end()) return Status::ok();
  n->second.erase(key);
  if (n->second.empty()) table_.erase(n);
  return persist_locked();
}

std::map<std::string, std::string> KvConfigManager::list(const std::string& ns) const {
  std::lock_guard lock(mutex_);
  auto n = table_.find(ns);
  return n == table_.end() ? std::map<std::string, std::string>{} : n->second;
}

Status KvConfigManager::persist_locked() const {
  if (file_.empty()) return Status::ok();
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("configTable");
  w.StartObject();
  for (const auto& [ns, entries] : table_) {
    w.Key(ns.c_str());
    w.StartObject();
    for (const auto& [k, v] : entries) {
      w.Key(k.c_str());
      w.String(v.c_str());
    }
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  return kernel::write_file_atomically(file_, {buffer.GetString(), buffer.GetSize()});
}

}  // namespace mqkit::namesrv
