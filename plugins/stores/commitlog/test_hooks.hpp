// TestHooks: what tests may do to a running commit log store beyond the MessageStore interface,
// reached through MessageStore::extension(kTestHooksId) (also on a store loaded as a plugin).
//
// Threads: any, like the store's own methods; simulate_crash() must not race with other calls.
#pragma once

#include <string_view>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::plugins::stores::commitlog {

inline constexpr std::string_view kTestHooksId = "mqkit.store.commitlog.test-hooks";

struct RetentionCounts {
  int commit_log_files = 0;
  int consume_queue_files = 0;
  int index_files = 0;
};

class TestHooks {
 public:
  // Runs one retention pass now; `manual` deletes expired files whatever the hour.
  virtual RetentionCounts run_retention(bool manual) noexcept = 0;
  // Flushes consume queues and index completely and writes the checkpoint now.
  virtual plugin::v1::Status write_checkpoint_now() noexcept = 0;
  // Stops the store as a killed process would: nothing is flushed, the checkpoint is not
  // written, the abort marker stays; waiting appends fail. Mapped bytes stay in the page cache
  // (as they do when a process dies), and the directory lock is released so a new store can open.
  virtual void simulate_crash() noexcept = 0;

 protected:
  ~TestHooks() = default;
};

}  // namespace mqkit::plugins::stores::commitlog
