// MessageExt: a message as stored by a broker and returned by pull, query and view requests
// (RocketMQ's MessageExt): the Message plus where and when it was stored.
//
// A value type; not synchronized.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/client/message.hpp"

namespace mqkit::client {

class MessageExt : public Message {
 public:
  // UNIQ_KEY when the producer set one, else the offset message id (what RocketMQ's
  // MessageClientExt.getMsgId returns and users see as "the message id").
  std::string msg_id() const;

  std::string broker_name{};            // filled by the caller that knows it (pull, query)
  std::int32_t queue_id = 0;
  std::int32_t store_size = 0;
  std::int64_t queue_offset = 0;
  std::int32_t sys_flag = 0;            // as stored; COMPRESSED is cleared once the body is inflated
  std::int64_t born_timestamp = 0;      // ms
  std::string born_host{};              // "ip:port"
  std::int64_t store_timestamp = 0;     // ms
  std::string store_host{};             // "ip:port"
  std::int64_t commit_log_offset = 0;
  std::int32_t body_crc = 0;
  std::int32_t reconsume_times = 0;
  std::int64_t prepared_transaction_offset = 0;
  std::string offset_msg_id{};          // store host | commit log offset, 32 hex chars for IPv4
};

// Encoded properties ("name\x01value\x02...") as a map, the last of a repeated name winning (as
// set_property would leave them).
Message::PropertyMap decode_property_map(std::string_view encoded);

// Decodes the back-to-back stored records of a pull/query/view response body (rocketmq-facts
// §1.13). With `inflate`, zlib-compressed bodies (COMPRESSED without a non-zlib compression type)
// are inflated. Corruption when a record does not decode.
Result<std::vector<MessageExt>> decode_messages(std::span<const std::uint8_t> bytes, bool inflate = true);

}  // namespace mqkit::client
