// Where a consumer keeps how far it got in each queue (RocketMQ's OffsetStore): a cache in
// memory, updated as messages are consumed, and a backing store it is persisted to —
//   RemoteOffsetStore: the brokers (clustering; the group shares them), and
//   LocalFileOffsetStore: a JSON file of this client (broadcasting).
// An offset is the next message to consume. -1 means "none known" (a queue new to the group).
//
// Threads: every method is thread-safe. persist_all runs on the instance's periodic thread and
// at shutdown; update on consume threads; read and remove on the rebalance thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "mqkit/client/types.hpp"

namespace mqkit::client {

class ClientInstance;

enum class ReadOffsetType : std::uint8_t {
  kMemory,           // the cache only
  kStore,            // the backing store (the cache is refreshed with what it says)
  kMemoryThenStore,  // the cache, else the backing store
};

class OffsetStore {
 public:
  virtual ~OffsetStore() = default;

  // Reads what the backing store holds into the cache (local file); nothing for the brokers.
  virtual Status load() = 0;
  // Sets the cached offset; with `increase_only` a smaller offset is ignored.
  void update(const MessageQueue& queue, std::int64_t offset, bool increase_only);
  // -1 when unknown; an error only when the backing store could not be asked.
  Result<std::int64_t> read(const MessageQueue& queue, ReadOffsetType type);
  // Writes the cached offsets of `owned` queues to the backing store; cached queues not owned any
  // more are forgotten (broker) or kept (file). Failures are logged.
  virtual void persist_all(const std::set<MessageQueue>& owned) = 0;
  // Writes one queue's cached offset now.
  virtual Status persist(const MessageQueue& queue) = 0;
  // Forgets a queue given up (its cached offset must not outlive a later take-over).
  virtual void remove(const MessageQueue& queue);
  // The cached offsets of `topic` (every topic when empty).
  std::map<MessageQueue, std::int64_t> offsets(std::string_view topic = {}) const;

 protected:
  // -1 when the backing store has none.
  virtual Result<std::int64_t> read_from_store(const MessageQueue& queue) = 0;
  std::optional<std::int64_t> cached(const MessageQueue& queue) const;

  mutable std::mutex mutex_;
  std::map<MessageQueue, std::int64_t> table_;
};

// Clustering: offsets of `group` on the brokers (QUERY/UPDATE_CONSUMER_OFFSET to each queue's
// master, found through the instance's routes).
class RemoteOffsetStore final : public OffsetStore {
 public:
  RemoteOffsetStore(std::shared_ptr<ClientInstance> instance, std::string group);
  Status load() override { return Status::ok(); }
  void persist_all(const std::set<MessageQueue>& owned) override;
  Status persist(const MessageQueue& queue) override;

 private:
  Result<std::int64_t> read_from_store(const MessageQueue& queue) override;

  std::shared_ptr<ClientInstance> instance_;
  std::string group_;
};

// Broadcasting: offsets in one JSON file, written atomically (kernel atomic_file: temp file,
// fsync, previous content kept as <file>.bak, rename):
//   {"offsetTable":[{"topic":"T","brokerName":"b","queueId":0,"offset":42}, ...]}
class LocalFileOffsetStore final : public OffsetStore {
 public:
  explicit LocalFileOffsetStore(std::filesystem::path file);
  // A missing file starts fresh (logged); a corrupt one falls back to <file>.bak, and when that is
  // corrupt or missing too, fails with Corruption naming the file.
  Status load() override;
  void persist_all(const std::set<MessageQueue>& owned) override;
  Status persist(const MessageQueue& queue) override;
  // Nothing: the file keeps every queue's offset, and no other client writes it (RocketMQ's
  // LocalFileOffsetStore does the same).
  void remove(const MessageQueue& /*queue*/) override {}
  const std::filesystem::path& file() const noexcept { return file_; }

 private:
  Result<std::int64_t> read_from_store(const MessageQueue& queue) override;
  Status write_file();

  std::filesystem::path file_;
  std::mutex write_mutex_;
  std::map<MessageQueue, std::int64_t> stored_;  // what the file holds, guarded by mutex_
};

}  // namespace mqkit::client
