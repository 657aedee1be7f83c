// append_and_wait: the synchronous form of MessageStore::append for tests and the crash child —
// appends, waits for the callback (bounded) and checks it came exactly once.
//
// Threads: any; the callback may run on a store thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <span>

#include "mqkit/plugin/v1/store.hpp"

namespace mqkit::plugins::stores::commitlog {

inline plugin::v1::Result<plugin::v1::AppendResult> append_and_wait(
    plugin::v1::MessageStore& store, std::span<const plugin::v1::MessageToAppend> batch,
    plugin::v1::AppendOptions options = {}, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  // Shared with the callback, which may come late (after a timeout here) on another thread.
  struct Outcome {
    std::mutex mutex;
    std::condition_variable done;
    std::optional<plugin::v1::Result<plugin::v1::AppendResult>> result;
    int calls = 0;
  };
  auto outcome = std::make_shared<Outcome>();
  store.append(batch, options, [outcome](plugin::v1::Result<plugin::v1::AppendResult> result) {
    {
      std::lock_guard lock(outcome->mutex);
      if (++outcome->calls == 1) outcome->result.emplace(std::move(result));
    }
    // Outside the lock: a woken waiter does not go straight back to sleep on the mutex.
    outcome->done.notify_all();
  });
  std::unique_lock lock(outcome->mutex);
  if (!outcome->done.wait_for(lock, limit, [&] { return outcome->result.has_value(); })) {
    return plugin::v1::Status::timeout("append callback not called in time");
  }
  if (outcome->calls != 1) return plugin::v1::Status::internal("append callback called more than once");
  return std::move(*outcome->result);
}

}  // namespace mqkit::plugins::stores::commitlog
