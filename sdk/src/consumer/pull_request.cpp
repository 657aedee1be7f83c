#include "pull_request.hpp"

namespace mqkit::client {

PullMessageRequest make_pull_request(const ConsumerConfig& config, const MessageQueue& queue, std::int64_t offset,
                                     const SubscriptionData& subscription) {
  PullMessageRequest request;
  request.consumer_group = config.group;
  request.topic = queue.topic;
  request.queue_id = queue.queue_id;
  request.queue_offset = offset;
  request.max_msg_nums = config.pull_batch_size;
  request.sys_flag = pull_sys_flag::kSuspend | pull_sys_flag::kSubscription;
  request.suspend_timeout_ms = config.broker_suspend_max_time.count();
  request.subscription = subscription.sub_string;
  request.sub_version = subscription.sub_version;
  request.expression_type = subscription.expression_type;
  return request;
}

}  // namespace mqkit::client
