// The PULL_MESSAGE request a consumer sends for one queue (RocketMQ's pullKernelImpl): long
// polling per the consumer's broker_suspend_max_time, the subscription's expression and version.
// Pure function; any thread.
#pragma once

#include <cstdint>

#include "mqkit/client/client_api.hpp"
#include "mqkit/client/consumer_config.hpp"
#include "mqkit/client/subscription.hpp"

namespace mqkit::client {

// Asks for pull_batch_size messages of `queue` from `offset`, without a commit offset (a caller
// that piggybacks one sets commit_offset and pull_sys_flag::kCommitOffset).
PullMessageRequest make_pull_request(const ConsumerConfig& config, const MessageQueue& queue, std::int64_t offset,
                                     const SubscriptionData& subscription);

}  // namespace mqkit::client
