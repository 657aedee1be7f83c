// Helpers shared by the allocator conformance and parity suites: building queue and client-id
// lists the way a consumer's rebalance does (sorted), and running one allocator for every member
// of a group.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "mqkit/plugin/v1/allocator.hpp"
#include "mqkit/plugin/v1/message_queue.hpp"
#include "plugin_fixture.hpp"

// Lets GoogleTest print queues in failure messages (found by argument-dependent lookup).
namespace mqkit::plugin::v1 {
inline void PrintTo(const MessageQueue& queue, std::ostream* os) { *os << queue.to_string(); }
}  // namespace mqkit::plugin::v1

namespace mqkit::testing::allocators {

using plugin::v1::AllocateContext;
using plugin::v1::MessageQueue;
using plugin::v1::QueueAllocator;

struct BrokerQueues {
  std::string broker_name;
  int queue_count = 0;
};

// Queues 0..count-1 of every broker, sorted as the caller of an allocator must sort them.
inline std::vector<MessageQueue> make_queues(const std::string& topic,
                                             const std::vector<BrokerQueues>& brokers) {
  std::vector<MessageQueue> queues;
  for (const auto& broker : brokers) {
    for (int id = 0; id < broker.queue_count; ++id) {
      queues.push_back(MessageQueue{topic, broker.broker_name, static_cast<std::int32_t>(id)});
    }
  }
  std::sort(queues.begin(), queues.end());
  return queues;
}

inline std::vector<std::string> sorted(std::vector<std::string> client_ids) {
  std::sort(client_ids.begin(), client_ids.end());
  return client_ids;
}

// "broker:queueId", the form expected lists are written in.
inline std::string label(const MessageQueue& queue) {
  return queue.broker_name + ":" + std::to_string(queue.queue_id);
}

inline std::vector<std::string> labels(const std::vector<MessageQueue>& queues) {
  std::vector<std::string> out;
  for (const auto& queue : queues) out.push_back(label(queue));
  return out;
}

inline std::shared_ptr<QueueAllocator> load_allocator(
    const std::string& name, const std::map<std::string, std::string>& config = {}) {
  return load_plugin<QueueAllocator>(name, config);
}

// What `current` owns; fails the test (and returns nothing) when the allocator reports an error.
inline std::vector<MessageQueue> allocate_for(QueueAllocator& allocator,
                                              const std::vector<MessageQueue>& queues,
                                              const std::vector<std::string>& client_ids,
                                              const std::string& current,
                                              const std::string& group = "test_group") {
  const AllocateContext context{group, current, queues, client_ids};
  auto result = allocator.allocate(context);
  if (!result.is_ok()) {
    ADD_FAILURE() << "allocate for " << current << ": " << result.status().to_string();
    return {};
  }
  return std::move(result).value();
}

// Every member's share, in client_ids order.
inline std::vector<std::vector<MessageQueue>> allocate_group(
    QueueAllocator& allocator, const std::vector<MessageQueue>& queues,
    const std::vector<std::string>& client_ids) {
  std::vector<std::vector<MessageQueue>> shares;
  for (const auto& client_id : client_ids) {
    shares.push_back(allocate_for(allocator, queues, client_ids, client_id));
  }
  return shares;
}

// Every member's share as labels, keyed by client id: readable when an expectation fails.
inline std::map<std::string, std::vector<std::string>> allocate_group_labels(
    QueueAllocator& allocator, const std::vector<MessageQueue>& queues,
    const std::vector<std::string>& client_ids) {
  std::map<std::string, std::vector<std::string>> shares;
  for (const auto& client_id : client_ids) {
    shares[client_id] = labels(allocate_for(allocator, queues, client_ids, client_id));
  }
  return shares;
}

}  // namespace mqkit::testing::allocators
