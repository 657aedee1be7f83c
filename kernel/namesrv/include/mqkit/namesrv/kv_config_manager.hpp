// KvConfigManager: the name server's namespaced key/value settings (e.g. ORDER_TOPIC_CONFIG),
// kept in memory and, when a path is configured, persisted as JSON after every change.
// Thread-safe.
#pragma once

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::namesrv {

class KvConfigManager {
 public:
  explicit KvConfigManager(std::filesystem::path file = {}) : file_(std::move(file)) {}

  // Loads the persisted table (missing file = empty). A corrupt file is an error naming it.
  plugin::v1::Status load();
  plugin::v1::Status put(const std::string& ns, const std::string& key, const std::string& value);
  std::optional<std::string> get(const std::string& ns, const std::string& key) const;
  plugin::v1::Status remove(const std::string& ns, const std::string& key);
  std::map<std::string, std::string> list(const std::string& ns) const;

 private:
  plugin::v1::Status persist_locked() const;

  std::filesystem::path file_;
  mutable std::mutex mutex_;
  std::map<std::string, std::map<std::string, std::string>> table_;
};

}  // namespace mqkit::namesrv
