// Turning what an application hands to send() into what goes on the wire: validation with
// RocketMQ's rules and messages (Validators.checkMessage), a UNIQ_KEY for every message, zlib
// compression of large bodies, the batch body of SEND_BATCH_MESSAGE (rocketmq-facts §1.14,
// §2.3, §2.6, §2.7). Pure functions; any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "mqkit/client/client_api.hpp"
#include "mqkit/client/message.hpp"
#include "mqkit/client/producer_config.hpp"

namespace mqkit::client {

// A message ready to be sent, possibly several times (retries share the body).
struct PreparedMessage {
  std::string topic{};
  std::string tags{};
  std::string keys{};
  std::int32_t flag = 0;
  std::int32_t sys_flag = 0;
  std::string properties{};  // encoded
  std::shared_ptr<const std::string> body{};
  bool batch = false;
  std::int32_t reconsume_times = 0;
  std::optional<std::int32_t> max_reconsume_times{};
  // A delay level or a start-deliver time: the message trace calls it Delay_Msg.
  bool delayed = false;
  // May travel in an auto batch: what prepare_batch accepts (no delay level or delivery time, not a retry topic,
  // waits for the store as by default, not a request-reply reply), not compressed, no
  // transaction flag.
  bool batchable = false;
};

// InvalidArgument with RocketMQ's wording: bad or forbidden topic, empty body, body over
// max_message_size (the uncompressed body).
Status validate_message(const Message& message, const ProducerConfig& config);

// Both name the topic with config.client.name_space on the wire (wrapped before it is validated).
Result<PreparedMessage> prepare_message(Message message, const ProducerConfig& config);
// All of one topic, no delay level or delivery time, not a retry topic, no reply, one wait-store setting; each message gets
// its own UNIQ_KEY; never compressed; the encoded batch must fit max_message_size.
Result<PreparedMessage> prepare_batch(std::vector<Message> messages, const ProducerConfig& config);
// The SEND_MESSAGE request of `message` for queue `queue_id`, as producer group config.group.
SendMessageRequest send_request_for(const PreparedMessage& message, const ProducerConfig& config,
                                    std::int32_t queue_id);
// One SEND_BATCH_MESSAGE of batchable prepared messages of one topic, in order (auto batching);
// each keeps its own UNIQ_KEY and properties.
PreparedMessage join_batch(std::span<const std::shared_ptr<const PreparedMessage>> parts);
// What a batch item of `message` adds to a batch body.
std::size_t batch_item_size(const PreparedMessage& message);

}  // namespace mqkit::client
