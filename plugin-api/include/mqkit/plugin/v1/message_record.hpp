// The RocketMQ message record: how one message is laid out in the commit log, in pull and query
// responses, and in transaction checks (the same bytes everywhere). This file is the only place
// that encodes or decodes it; layouts are in docs/storage-format.md (rocketmq-facts §3.2).
//
// Also: the property string (name\x01value\x02...), offset message ids, and the batch body of
// SEND_BATCH_MESSAGE. All integers are big-endian.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mqkit/plugin/v1/status.hpp"
#include "mqkit/plugin/v1/store.hpp"

namespace mqkit::plugin::v1 {

inline constexpr std::int32_t kMessageMagicV1 = static_cast<std::int32_t>(0xDAA320A7);
// Written where a record does not fit at the end of a commit log file: [int32 size][int32 magic].
inline constexpr std::int32_t kBlankMagic = static_cast<std::int32_t>(0xCBD43194);
inline constexpr std::int32_t kBlankHeaderSize = 8;
inline constexpr std::size_t kMaxPropertiesLength = 32767;
inline constexpr std::size_t kMaxTopicLength = 127;
// The smallest record: IPv4 hosts, no body, topic or properties.
inline constexpr std::int32_t kMinRecordSize = 4 + 4 + 4 + 4 + 4 + 8 + 8 + 4 + 8 + 8 + 8 + 8 + 4 + 8 + 4 + 1 + 2;

// MessageSysFlag bits (rocketmq-facts §2.4).
namespace sys_flag {
inline constexpr std::int32_t kCompressed = 0x1;
inline constexpr std::int32_t kMultiTags = 0x2;
inline constexpr std::int32_t kTransactionPrepared = 0x4;
inline constexpr std::int32_t kTransactionCommit = 0x8;
inline constexpr std::int32_t kTransactionRollback = 0xC;
inline constexpr std::int32_t kTransactionMask = 0xC;
inline constexpr std::int32_t kBornHostV6 = 0x10;
inline constexpr std::int32_t kStoreHostV6 = 0x20;
}  // namespace sys_flag

// MessageConst property names used by mqkit.
namespace property {
inline constexpr std::string_view kKeys = "KEYS";
inline constexpr std::string_view kTags = "TAGS";
inline constexpr std::string_view kWaitStoreOk = "WAIT";
inline constexpr std::string_view kDelayLevel = "DELAY";
inline constexpr std::string_view kUniqueKey = "UNIQ_KEY";
inline constexpr std::string_view kTransactionPrepared = "TRAN_MSG";
inline constexpr std::string_view kProducerGroup = "PGROUP";
inline constexpr std::string_view kMinOffset = "MIN_OFFSET";
inline constexpr std::string_view kMaxOffset = "MAX_OFFSET";
inline constexpr std::string_view kRealTopic = "REAL_TOPIC";
inline constexpr std::string_view kRealQueueId = "REAL_QID";
inline constexpr std::string_view kRetryTopic = "RETRY_TOPIC";
inline constexpr std::string_view kReconsumeTime = "RECONSUME_TIME";
inline constexpr std::string_view kMaxReconsumeTimes = "MAX_RECONSUME_TIMES";
inline constexpr std::string_view kOriginMessageId = "ORIGIN_MESSAGE_ID";
inline constexpr std::string_view kCluster = "CLUSTER";
inline constexpr std::string_view kTransactionId = "__transactionId__";
inline constexpr std::string_view kConsumeStartTime = "CONSUME_START_TIME";
}  // namespace property

// Properties in their stored order.
using Properties = std::vector<std::pair<std::string, std::string>>;

// "name\x01value\x02" for each pair (empty values are kept, as RocketMQ keeps them).
std::string encode_properties(const Properties& properties);
// Appends one "name\x01value\x02", for callers that encode without building a Properties list.
void append_property(std::string& out, std::string_view name, std::string_view value);
// What append_property adds.
constexpr std::size_t encoded_property_size(std::string_view name, std::string_view value) {
  return name.size() + value.size() + 2;
}
// Lenient like RocketMQ: segments without a separator are skipped.
Properties decode_properties(std::string_view encoded);
// The next property of `encoded` (views into it), which is advanced past it; nullopt when none
// is left. Skips segments like decode_properties, for callers that build their own container.
std::optional<std::pair<std::string_view, std::string_view>> next_property(std::string_view& encoded);
// One property of an encoded string, without building the whole map.
std::optional<std::string_view> find_property(std::string_view encoded, std::string_view name);

// Tag code of a record: Java hashCode of TAGS (0 when there is no tag).
std::int64_t tags_code_of(std::string_view tags);

// CRC32 of the body as RocketMQ stores it: zlib crc32 & 0x7FFFFFFF.
std::int32_t body_crc(std::span<const std::uint8_t> body);

// Bytes the record of `message` takes in the commit log.
std::int32_t record_size(const MessageToAppend& message);

// Fields the store assigns while appending.
struct RecordPlacement {
  std::int64_t queue_offset = 0;
  std::int64_t commit_offset = 0;
  std::int64_t store_timestamp = 0;
};

// Writes the record into out (exactly record_size(message) bytes). InvalidArgument for a topic
// over 127 bytes or properties over 32767 bytes.
Status encode_record(const MessageToAppend& message, const RecordPlacement& placement,
                     std::span<std::uint8_t> out);

// A decoded record; views point into the bytes it was decoded from.
struct RecordView {
  std::int32_t total_size = 0;
  std::int32_t magic = 0;
  std::int32_t body_crc = 0;
  std::int32_t queue_id = 0;
  std::int32_t flag = 0;
  std::int64_t queue_offset = 0;
  std::int64_t commit_offset = 0;
  std::int32_t sys_flag = 0;
  std::int64_t born_timestamp = 0;
  HostAddress born_host{};
  std::int64_t store_timestamp = 0;
  HostAddress store_host{};
  std::int32_t reconsume_times = 0;
  std::int64_t prepared_transaction_offset = 0;
  std::span<const std::uint8_t> body{};
  std::string_view topic{};
  std::string_view properties{};
};

enum class CrcCheck : std::uint8_t { kSkip, kVerify };

// Decodes the record at the start of `bytes`. Corruption names what is wrong (bad magic, size
// beyond the buffer, lengths that do not add up, body CRC mismatch). A blank (end-of-file)
// marker is reported as NotFound so scanners can skip to the next file.
Result<RecordView> decode_record(std::span<const std::uint8_t> bytes, CrcCheck crc = CrcCheck::kSkip);

// The reconsume count after one more delivery. A client may have stored any int there: the count
// stops at the largest instead of wrapping below zero.
constexpr std::int32_t next_reconsume_times(std::int32_t times) noexcept {
  return times == std::numeric_limits<std::int32_t>::max() ? times : times + 1;
}

// A copy of the whole record at the start of `bytes` with its reconsume times set to `times`
// (a message delivered again says so, as a copy in a retry topic does). The body CRC covers the
// body only, so it stays valid. Corruption when `bytes` holds no whole record.
Result<std::vector<std::uint8_t>> with_reconsume_times(std::span<const std::uint8_t> bytes, std::int32_t times);

// Offset message id: hex of store ip | port | commit offset (32 hex chars for IPv4).
std::string make_offset_message_id(const HostAddress& store_host, std::int64_t commit_offset);
struct OffsetMessageId {
  HostAddress store_host{};
  std::int64_t commit_offset = 0;
};
Result<OffsetMessageId> parse_offset_message_id(std::string_view id);

// One message inside a SEND_BATCH_MESSAGE body (rocketmq-facts §1.14).
struct BatchItem {
  std::int32_t flag = 0;
  std::span<const std::uint8_t> body{};
  std::string_view properties{};
};
Result<std::vector<BatchItem>> decode_batch(std::span<const std::uint8_t> body);
void append_batch_item(std::vector<std::uint8_t>& out, std::int32_t flag, std::span<const std::uint8_t> body,
                       std::string_view properties);
// The same into a string (the SDK sends bodies as strings, so a batch is built in place).
void append_batch_item(std::string& out, std::int32_t flag, std::span<const std::uint8_t> body,
                       std::string_view properties);
// What append_batch_item adds.
constexpr std::size_t batch_item_size(std::size_t body_size, std::size_t properties_size) {
  return 4 + 4 + 4 + 4 + 4 + body_size + 2 + properties_size;
}

// "ip:port" for an address (IPv6 in brackets).
std::string to_string(const HostAddress& address);
// Parses "1.2.3.4:10911" or "[::1]:10911".
Result<HostAddress> parse_host_address(std::string_view text);

}  // namespace mqkit::plugin::v1
