#include "mqkit/client/message_ext.hpp"

#include "mqkit/client/compression.hpp"
#include "mqkit/plugin/v1/message_record.hpp"

namespace mqkit::client {

namespace v1 = plugin::v1;

// Built with each name and value made once from the record. Producers that encode from a sorted
// map (this SDK) store the names in order, so most go at the end without a search.
Message::PropertyMap decode_property_map(std::string_view encoded) {
  Message::PropertyMap map;
  while (const auto property = v1::next_property(encoded)) {
    const auto [name, value] = *property;
    if (map.empty() || std::string_view(map.rbegin()->first) < name) {
      map.emplace_hint(map.end(), name, value);
      continue;
    }
    const auto it = map.lower_bound(name);
    if (it != map.end() && it->first == name) {
      it->second.assign(value);
    } else {
      map.emplace_hint(it, name, value);
    }
  }
  return map;
}

namespace {

// Fills `m` (default-constructed) from the record.
Status to_message(const v1::RecordView& record, bool inflate, MessageExt& m) {
  m.set_topic(std::string(record.topic));
  m.set_flag(record.flag);
  m.set_properties(decode_property_map(record.properties));
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
  if (inflate && is_zlib_compressed(record.sys_flag)) {
    auto body = zlib_uncompress(record.body);
    if (!body) return body.status().with_context("message at commit log offset " + std::to_string(record.commit_offset));
    m.set_body(std::move(body).value());
    m.sys_flag = without_compression(m.sys_flag);
  } else {
    m.set_body(std::string(reinterpret_cast<const char*>(record.body.data()), record.body.size()));
  }
  return Status::ok();
}

// Records in `bytes` by their size fields alone, to size the output once; decoding checks them.
// Sizes below the smallest record stop the count, so a bad body cannot make it reserve more
// than a few bytes per byte of input.
std::size_t count_records(std::span<const std::uint8_t> bytes) {
  std::size_t count = 0;
  while (bytes.size() >= 4) {
    const std::uint32_t size = (std::uint32_t{bytes[0]} << 24) | (std::uint32_t{bytes[1]} << 16) |
                               (std::uint32_t{bytes[2]} << 8) | std::uint32_t{bytes[3]};
    if (size < static_cast<std::uint32_t>(v1::kMinRecordSize) || size > bytes.size()) break;
    ++count;
    bytes = bytes.subspan(size);
  }
  return count;
}

}  // namespace

std::string MessageExt::msg_id() const {
  const std::string_view unique = unique_id();
  return unique.empty() ? offset_msg_id : std::string(unique);
}

Result<std::vector<MessageExt>> decode_messages(std::span<const std::uint8_t> bytes, bool inflate) {
  std::vector<MessageExt> out;
  out.reserve(count_records(bytes));
  while (!bytes.empty()) {
    auto record = v1::decode_record(bytes);
    if (!record) return record.status().with_context("decoding stored message " + std::to_string(out.size()));
    if (record->total_size <= 0 || static_cast<std::size_t>(record->total_size) > bytes.size()) {
      return Status::corruption("stored message " + std::to_string(out.size()) + " has a bad total size");
    }
    MQKIT_RETURN_IF_ERROR(to_message(*record, inflate, out.emplace_back()));
    bytes = bytes.subspan(static_cast<std::size_t>(record->total_size));
  }
  return out;
}

}  // namespace mqkit::client
