// MetadataStore: the small documents a broker keeps with its store (topics.json,
// consumerOffset.json, subscriptionGroup.json, delayOffset.json, ...) in <store_path>/config/.
//
// save() is atomic: the new content goes to <name>.tmp and is fsynced, the current file is
// copied to <name>.bak, then <name>.tmp is renamed over <name> and the directory fsynced — so
// <name> always holds a whole document, old or new. load() falls back to <name>.bak when <name>
// is missing or unreadable, or (for *.json) visibly truncated, as RocketMQ's ConfigManager does.
// An empty document is a saved value like any other.
//
// Threads: any; saves are serialized.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "env.hpp"
#include "logger.hpp"

namespace mqkit::plugins::stores::commitlog {

class MetadataStore {
 public:
  MetadataStore(Env& env, Logger log, std::string dir) : env_(env), log_(log), dir_(std::move(dir)) {}

  v1::Status save(std::string_view name, std::string_view content);
  // nullopt when the document was never saved.
  v1::Result<std::optional<std::string>> load(std::string_view name);

 private:
  Env& env_;
  Logger log_;
  const std::string dir_;
  std::mutex mutex_;
};

// A metadata name is one file name: no '/', not "." or "..", not empty.
v1::Status validate_metadata_name(std::string_view name);
// Whether `content` looks like a whole document: for a non-empty *.json, balanced brackets
// outside strings, ending in '}' or ']'. Tolerates fastjson's unquoted keys.
bool looks_whole(std::string_view name, std::string_view content);

}  // namespace mqkit::plugins::stores::commitlog
