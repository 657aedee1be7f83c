// Where the broker keeps its small state documents (topics.json, consumerOffset.json,
// subscriptionGroup.json, delayOffset.json): with the store, which writes them atomically.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "mqkit/plugin/v1/store.hpp"

namespace mqkit::broker {

class MetadataFiles {
 public:
  virtual ~MetadataFiles() = default;
  virtual plugin::v1::Status save(const std::string& name, const std::string& content) = 0;
  virtual plugin::v1::Result<std::optional<std::string>> load(const std::string& name) = 0;
};

class StoreMetadataFiles final : public MetadataFiles {
 public:
  explicit StoreMetadataFiles(std::shared_ptr<plugin::v1::MessageStore> store) : store_(std::move(store)) {}
  plugin::v1::Status save(const std::string& name, const std::string& content) override {
    return store_->save_metadata(name, content);
  }
  plugin::v1::Result<std::optional<std::string>> load(const std::string& name) override {
    return store_->load_metadata(name);
  }

 private:
  std::shared_ptr<plugin::v1::MessageStore> store_;
};

// For tests and tools: documents in a map.
class InMemoryMetadataFiles final : public MetadataFiles {
 public:
  plugin::v1::Status save(const std::string& name, const std::string& content) override {
    std::lock_guard lock(mutex_);
    files_[name] = content;
    return plugin::v1::Status::ok();
  }
  plugin::v1::Result<std::optional<std::string>> load(const std::string& name) override {
    std::lock_guard lock(mutex_);
    auto it = files_.find(name);
    return it == files_.end() ? std::optional<std::string>() : std::optional<std::string>(it->second);
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::string> files_;
};

}  // namespace mqkit::broker
