// Optional operator requests on a store, reached with MessageStore::extension(kStoreAdminId) →
// StoreAdmin*. They back RocketMQ's maintenance requests (mqadmin deleteExpiredCommitLog,
// cleanExpiredCQ, cleanUnusedTopic, queryCq). A store that returns nullptr answers them with a
// clear "not supported by this store" from the broker; the broker keeps RocketMQ's rules about
// which topics may be touched, the store only does what it is told.
//
// Threads: any, concurrently with appends, reads and dispatch.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::plugin::v1 {

inline constexpr std::string_view kStoreAdminId = "mqkit.store.admin.v1";

struct QueueRef {
  std::string topic;
  std::int32_t queue_id = 0;
};

// One consume queue unit: where its message is in the commit log and the tag hash (for delay
// topics the delivery time), as RocketMQ's ConsumeQueue stores it.
struct QueueUnit {
  std::int64_t queue_offset = 0;
  std::int64_t commit_offset = 0;
  std::int32_t size = 0;
  std::int64_t tags_code = 0;
};

struct QueueUnits {
  std::int64_t min_offset = 0;
  std::int64_t max_offset = 0;
  std::vector<QueueUnit> units;  // consecutive queue offsets
};

// Where queue_units() stops for `count` units from `from` in a queue ending at `max_offset`: the
// one computation both stores share, safe for any `from` a request carries (no overflow).
inline std::int64_t queue_units_end(std::int64_t from, std::int32_t count, std::int64_t max_offset) noexcept {
  const std::int64_t wanted = count > 0 ? count : 0;
  return from > max_offset - wanted ? max_offset : from + wanted;
}

class StoreAdmin {
 public:
  // Deletes now the commit log files past their reserved time, whatever the hour and disk use
  // (RocketMQ's executeDeleteFilesManually), and the consume queue and index files that pointed
  // only into them. Returns how many commit log files went.
  virtual Result<int> delete_expired_files() noexcept = 0;

  // Every queue the store holds.
  virtual Result<std::vector<QueueRef>> queues() noexcept = 0;

  // Up to `count` units of a queue from queue offset `from` (units below the queue's min offset
  // are skipped). NotFound when the store has no such queue.
  virtual Result<QueueUnits> queue_units(std::string_view topic, std::int32_t queue_id, std::int64_t from,
                                         std::int32_t count) noexcept = 0;

  // Removes a queue none of whose messages is left in the commit log: it has held messages and
  // its last unit points below the commit log's min offset. Returns false, and keeps the queue,
  // otherwise (never written, or a message still there or on its way). A message sent to the
  // queue afterwards starts it again at queue offset 0, as in RocketMQ.
  virtual Result<bool> drop_expired_queue(std::string_view topic, std::int32_t queue_id) noexcept = 0;

 protected:
  ~StoreAdmin() = default;
};

}  // namespace mqkit::plugin::v1
