// What every allocator does before and around its own algorithm, kept in one place so that all
// built-ins agree on it.
//
// RocketMQ (AbstractAllocateMessageQueueStrategy.check) rejects an empty current client id and
// an empty client list, and gives nothing to a client that is not in the list: that client is
// out of date with the group and will be told so at its next rebalance. Unlike RocketMQ we accept
// an empty queue list (a topic with no readable queues simply yields nothing), because the v1
// contract names only the two client-id errors.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "mqkit/plugin/v1/allocator.hpp"
#include "mqkit/plugin/v1/message_queue.hpp"
#include "mqkit/plugin/v1/plugin.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::plugins::allocators {

// The v1 names every allocator plugin uses.
using plugin::v1::AllocateContext;
using plugin::v1::Category;
using plugin::v1::ConfigField;
using plugin::v1::ConfigValues;
using plugin::v1::Host;
using plugin::v1::LogLevel;
using plugin::v1::MessageQueue;
using plugin::v1::QueueAllocator;
using plugin::v1::Result;
using plugin::v1::Status;
using plugin::v1::ValueType;

using AllocateResult = plugin::v1::Result<std::vector<plugin::v1::MessageQueue>>;

// Runs `allocate_for(current_index)` (returning AllocateResult) once the common checks pass,
// where current_index is the position of the current client in context.all_client_ids.
// Allocation failures and any other exception become a Status here, because allocate() is
// noexcept and an exception must never unwind into the host.
template <typename AllocateFor>
AllocateResult allocate_checked(const plugin::v1::AllocateContext& context,
                                AllocateFor&& allocate_for) noexcept {
  using plugin::v1::Status;
  try {
    if (context.current_client_id.empty()) {
      return Status::invalid_argument("current client id is empty");
    }
    if (context.all_client_ids.empty()) {
      return Status::invalid_argument("the consumer group has no client ids");
    }
    const auto& ids = context.all_client_ids;
    const auto found = std::find(ids.begin(), ids.end(), context.current_client_id);
    if (found == ids.end()) return std::vector<plugin::v1::MessageQueue>{};
    return std::forward<AllocateFor>(allocate_for)(static_cast<std::size_t>(found - ids.begin()));
  } catch (const std::bad_alloc&) {
    return Status::resource_exhausted("out of memory while allocating queues");
  } catch (const std::exception& e) {
    return Status::internal(std::string("queue allocation failed: ") + e.what());
  } catch (...) {
    return Status::internal("queue allocation failed with a non-standard exception");
  }
}

}  // namespace mqkit::plugins::allocators
