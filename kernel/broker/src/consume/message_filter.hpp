// What the pull and pop paths share to filter messages by a consumer's subscription beyond tags:
// SQL92 expressions over message properties (kernel/filter), served while the broker's
// enable_property_filter is on. TAG expressions need none of it: the store matches tags by their
// hash codes as it reads.
//
// Pure functions over their arguments; any thread (the cache is thread-safe).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "mqkit/broker/broker_config.hpp"
#include "mqkit/filter/sql_filter.hpp"
#include "mqkit/filter/sql_filter_cache.hpp"
#include "mqkit/plugin/v1/status.hpp"
#include "mqkit/plugin/v1/store.hpp"

namespace mqkit::broker {

// The SQL92 filter `group`'s subscription to `topic` asks for, compiled once per (group, topic,
// expression) through `cache`; nullopt for a TAG expression. Refused, with the remark RocketMQ
// answers: NotSupported for any other expression type, and for SQL92 while
// enable_property_filter is off; InvalidArgument naming the problem for SQL92 that does not
// parse. subscription_refusal_code() gives the response code of a refusal.
plugin::v1::Result<std::optional<filter::SqlFilter>> sql_filter_of(const BrokerConfig& config,
                                                                   filter::SqlFilterCache& cache,
                                                                   std::string_view group, std::string_view topic,
                                                                   std::string_view expression_type,
                                                                   std::string_view expression);

// SYSTEM_ERROR for an expression type the broker does not serve, SUBSCRIPTION_PARSE_FAILED for an
// expression that does not parse.
std::int32_t subscription_refusal_code(const plugin::v1::Status& refusal);

// Keeps the records of `result` whose properties `sql` selects (a record that does not decode is
// dropped, and logged); NO_MATCHED_MESSAGE when none is left. next_begin_offset stays past every
// record examined, so the consumer moves on past the ones dropped.
void keep_selected(plugin::v1::ReadResult& result, const filter::SqlFilter& sql, std::string_view group,
                   std::string_view topic, std::int32_t queue_id);

}  // namespace mqkit::broker
