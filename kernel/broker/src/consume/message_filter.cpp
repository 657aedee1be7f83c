#include "message_filter.hpp"

#include <string>

#include "mqkit/kernel/logging.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/subscription_expression.hpp"

namespace mqkit::broker {

namespace v1 = plugin::v1;

v1::Result<std::optional<filter::SqlFilter>> sql_filter_of(const BrokerConfig& config, filter::SqlFilterCache& cache,
                                                           std::string_view group, std::string_view topic,
                                                           std::string_view expression_type,
                                                           std::string_view expression) {
  if (protocol::is_tag_expression(expression_type)) return std::optional<filter::SqlFilter>{};
  if (expression_type != filter::kSql92ExpressionType || !config.enable_property_filter) {
    return v1::Status::not_supported("The broker does not support consumer to filter message by " +
                                     std::string(expression_type));
  }
  auto compiled = cache.get(group, topic, expression);
  if (!compiled) {
    kernel::logger("broker")->warn("group {} subscribes {} with a SQL92 expression that does not parse: {}", group,
                                   topic, compiled.status().message());
    return v1::Status::invalid_argument("parse the consumer's subscription failed: " + compiled.status().message());
  }
  return std::optional<filter::SqlFilter>(std::move(compiled).value());
}

std::int32_t subscription_refusal_code(const v1::Status& refusal) {
  return refusal.code() == v1::StatusCode::kNotSupported ? protocol::response_code::kSystemError
                                                         : protocol::response_code::kSubscriptionParseFailed;
}

void keep_selected(v1::ReadResult& result, const filter::SqlFilter& sql, std::string_view group,
                   std::string_view topic, std::int32_t queue_id) {
  std::size_t kept = 0;
  for (std::size_t i = 0; i < result.records.size(); ++i) {
    auto record = v1::decode_record(result.records[i].bytes);
    if (!record) {
      kernel::logger("broker")->warn("read of {}:{} offset {} for group {}: record skipped by the SQL92 filter: {}",
                                     topic, queue_id, result.queue_offsets[i], group, record.status().message());
    }
    if (!record || !sql.matches(record->properties)) {
      result.total_bytes -= static_cast<std::int64_t>(result.records[i].bytes.size());
      continue;
    }
    if (kept != i) {
      result.records[kept] = std::move(result.records[i]);
      result.queue_offsets[kept] = result.queue_offsets[i];
    }
    ++kept;
  }
  result.records.resize(kept);
  result.queue_offsets.resize(kept);
  if (kept == 0) result.status = v1::ReadStatus::kNoMatchedMessage;
}

}  // namespace mqkit::broker
