#include "mqkit/client/offset_store.hpp"

#include <fstream>
#include <sstream>

#include "mqkit/client/client_instance.hpp"
#include "mqkit/kernel/atomic_file.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/protocol/bodies.hpp"
#include "queue_broker.hpp"

namespace mqkit::client {

namespace {

std::shared_ptr<spdlog::logger> log() { return kernel::logger("client"); }

// The file holds the shape brokers send C++ clients (ResetOffsetBodyForC: standard JSON);
// fastjson's map keyed by MessageQueue objects reads too.
Result<std::map<MessageQueue, std::int64_t>> decode_offsets_file(std::string_view text) {
  MQKIT_ASSIGN_OR_RETURN(protocol::ResetOffsetBody body, protocol::decode_reset_offset_body(text));
  return std::move(body.offset_table);
}

}  // namespace

// ---- OffsetStore ---------------------------------------------------------------------------

void OffsetStore::update(const MessageQueue& queue, std::int64_t offset, bool increase_only) {
  std::lock_guard lock(mutex_);
  auto [it, inserted] = table_.try_emplace(queue, offset);
  if (!inserted && (!increase_only || offset > it->second)) it->second = offset;
}

std::optional<std::int64_t> OffsetStore::cached(const MessageQueue& queue) const {
  std::lock_guard lock(mutex_);
  const auto it = table_.find(queue);
  if (it == table_.end()) return std::nullopt;
  return it->second;
}

Result<std::int64_t> OffsetStore::read(const MessageQueue& queue, ReadOffsetType type) {
  if (type != ReadOffsetType::kStore) {
    if (auto value = cached(queue)) return *value;
    if (type == ReadOffsetType::kMemory) return std::int64_t{-1};
  }
  MQKIT_ASSIGN_OR_RETURN(const std::int64_t stored, read_from_store(queue));
  if (stored >= 0) update(queue, stored, false);
  return stored;
}

void OffsetStore::remove(const MessageQueue& queue) {
  std::lock_guard lock(mutex_);
  table_.erase(queue);
}

std::map<MessageQueue, std::int64_t> OffsetStore::offsets(std::string_view topic) const {
  std::lock_guard lock(mutex_);
  if (topic.empty()) return table_;
  std::map<MessageQueue, std::int64_t> out;
  for (const auto& [queue, offset] : table_) {
    if (queue.topic == topic) out.emplace(queue, offset);
  }
  return out;
}

// ---- RemoteOffsetStore ---------------------------------------------------------------------

RemoteOffsetStore::RemoteOffsetStore(std::shared_ptr<ClientInstance> instance, std::string group)
    : instance_(std::move(instance)), group_(std::move(group)) {}

Result<std::int64_t> RemoteOffsetStore::read_from_store(const MessageQueue& queue) {
  MQKIT_ASSIGN_OR_RETURN(const std::string address, offset_broker_of(*instance_, queue));
  auto offset = instance_->api().query_consumer_offset(address, group_, queue);
  if (!offset && offset.status().code() == StatusCode::kNotFound) return std::int64_t{-1};
  return offset;
}

Status RemoteOffsetStore::persist(const MessageQueue& queue) {
  const auto offset = cached(queue);
  if (!offset) return Status::ok();
  MQKIT_ASSIGN_OR_RETURN(const std::string address, offset_broker_of(*instance_, queue));
  return instance_->api().update_consumer_offset(address, group_, queue, *offset);
}

void RemoteOffsetStore::persist_all(const std::set<MessageQueue>& owned) {
  std::vector<MessageQueue> to_persist;
  {
    std::lock_guard lock(mutex_);
    for (auto it = table_.begin(); it != table_.end();) {
      if (owned.contains(it->first)) {
        to_persist.push_back(it->first);
        ++it;
      } else {
        it = table_.erase(it);  // another consumer of the group owns it now
      }
    }
  }
  for (const auto& queue : to_persist) {
    if (Status s = persist(queue); !s) {
      log()->warn("{}: persisting the offset of {}: {}", group_, queue.to_string(), s.to_string());
    }
  }
}

// ---- LocalFileOffsetStore ------------------------------------------------------------------

namespace {

std::optional<std::string> read_whole(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

LocalFileOffsetStore::LocalFileOffsetStore(std::filesystem::path file) : file_(std::move(file)) {}

Status LocalFileOffsetStore::load() {
  auto content = kernel::read_file_with_backup(file_);
  if (!content) return content.status().with_context("reading offsets file " + file_.string());
  if (!content->has_value()) {
    log()->info("no offsets file {} yet: every queue starts as consume_from_where says", file_.string());
    return Status::ok();
  }
  auto parsed = decode_offsets_file(**content);
  if (!parsed) {
    const auto backup = file_.string() + ".bak";
    auto old = read_whole(backup);
    auto parsed_backup = old ? decode_offsets_file(*old) : Result<std::map<MessageQueue, std::int64_t>>(
                                                         Status::not_found("no backup"));
    if (!parsed_backup) {
      return Status::corruption("offsets file " + file_.string() + " is corrupt (" + parsed.status().message() +
                                ") and so is its backup or it has none; fix or delete it to start over");
    }
    log()->warn("offsets file {} is corrupt ({}); using its backup {}", file_.string(), parsed.status().message(),
                backup);
    parsed = std::move(parsed_backup);
  }
  std::lock_guard lock(mutex_);
  stored_ = *parsed;
  for (const auto& [queue, offset] : stored_) table_[queue] = offset;
  return Status::ok();
}

Result<std::int64_t> LocalFileOffsetStore::read_from_store(const MessageQueue& queue) {
  std::lock_guard lock(mutex_);
  const auto it = stored_.find(queue);
  return it == stored_.end() ? std::int64_t{-1} : it->second;
}

Status LocalFileOffsetStore::write_file() {
  std::lock_guard write(write_mutex_);  // one writer of the file at a time
  // What the file holds, updated with the cache: a queue dropped from the cache (given up, or
  // released at shutdown) keeps its last offset in the file, as RocketMQ's file store does.
  std::map<MessageQueue, std::int64_t> snapshot;
  {
    std::lock_guard lock(mutex_);
    snapshot = stored_;
    for (const auto& [queue, offset] : table_) snapshot[queue] = offset;
  }
  std::error_code ec;
  std::filesystem::create_directories(file_.parent_path(), ec);
  if (ec) return Status::io_error("creating " + file_.parent_path().string() + ": " + ec.message());
  MQKIT_RETURN_IF_ERROR(kernel::write_file_atomically(file_, protocol::encode_for_cpp(protocol::ResetOffsetBody{snapshot})));
  std::lock_guard lock(mutex_);
  stored_ = std::move(snapshot);
  return Status::ok();
}

void LocalFileOffsetStore::persist_all(const std::set<MessageQueue>& /*owned*/) {
  // The whole table is written: offsets of queues not (yet) owned stay in the file.
  if (Status s = write_file(); !s) log()->warn("persisting offsets to {}: {}", file_.string(), s.to_string());
}

Status LocalFileOffsetStore::persist(const MessageQueue& /*queue*/) { return write_file(); }

}  // namespace mqkit::client
