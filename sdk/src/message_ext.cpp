#include "mqkit/client/message_ext.hpp"

#include "compression.hpp"
#include "mqkit/plugin/v1/message_record.hpp"

namespace mqkit::client {

namespace v1 = plugin::v1;

namespace {

// 5.x compression type bits (8-10) next to COMPRESSED: 0 (legacy) and 3 are zlib.
constexpr std::int32_t kCompressionTypeMask = 0x700;
constexpr std::int32_t kCompressionZlib = 0x300;

Result<MessageExt> to_message(const v1::RecordView& record, bool inflate) {
  MessageExt m;
  m.set_topic(std::string(record.topic));
  m.set_flag(record.flag);
  for (auto& [name, value] : v1::decode_properties(record.properties)) m.set_property(std::move(name), std::move(value));
  m.queue_id = record.queue_id;
  m.store_size = record.total_size;
  m.queue_offset = record.queue_offset;
  m.sys_flag = record.sys_flag;
  m.born_timestamp = record.born_timestamp;
  m.born_host = v1::to_string(record.born_host);
  m.store_timestamp = record.store_timestamp;
  m.store_host = v1::to_string(record.store_host);
  m.commit_log_offset = record.commit_offset;
  m.body_crc = record.body_crc;
  m.reconsume_times = record.reconsume_times;
  m.prepared_transaction_offset = record.prepared_transaction_offset;
  m.offset_msg_id = v1::make_offset_message_id(record.store_host, record.commit_offset);
  const std::int32_t type = record.sys_flag & kCompressionTypeMask;
  if (inflate && (record.sys_flag & v1::sys_flag::kCompressed) != 0 && (type == 0 || type == kCompressionZlib)) {
    auto body = zlib_uncompress(record.body);
    if (!body) return body.status().with_context("message at commit log offset " + std::to_string(record.commit_offset));
    m.set_body(std::move(body).value());
    m.sys_flag &= ~(v1::sys_flag::kCompressed | kCompressionTypeMask);
  } else {
    m.set_body(std::string(reinterpret_cast<const char*>(record.body.data()), record.body.size()));
  }
  return m;
}

}  // namespace

std::string MessageExt::msg_id() const {
  const std::string_view unique = unique_id();
  return unique.empty() ? offset_msg_id : std::string(unique);
}

Result<std::vector<MessageExt>> decode_messages(std::span<const std::uint8_t> bytes, bool inflate) {
  std::vector<MessageExt> out;
  while (!bytes.empty()) {
    auto record = v1::decode_record(bytes);
    if (!record) return record.status().with_context("decoding stored message " + std::to_string(out.size()));
    if (record->total_size <= 0 || static_cast<std::size_t>(record->total_size) > bytes.size()) {
      return Status::corruption("stored message " + std::to_string(out.size()) + " has a bad total size");
    }
    MQKIT_ASSIGN_OR_RETURN(MessageExt message, to_message(*record, inflate));
    out.push_back(std::move(message));
    bytes = bytes.subspan(static_cast<std::size_t>(record->total_size));
  }
  return out;
}

}  // namespace mqkit::client
