// The transaction id mqproxy hands a RocketMQ 5 client for a half message: everything
// END_TRANSACTION needs, so any mqproxy can end the transaction without remembering it (RocketMQ's
// proxy keeps such data in memory instead). Opaque to clients, which only give it back:
//   "<brokerName> <queueOffset> <commitLogOffset> <brokerTransactionId>"
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::proxy {

struct ProxyTransactionId {
  std::string broker_name{};
  std::int64_t tran_state_table_offset = 0;  // the half message's queue offset
  std::int64_t commit_log_offset = 0;
  std::string broker_transaction_id{};  // what the broker calls it (its UNIQ_KEY for mqkit and RocketMQ)
};

std::string encode_transaction_id(const ProxyTransactionId& id);
// InvalidArgument when `text` is not one mqproxy made.
plugin::v1::Result<ProxyTransactionId> decode_transaction_id(std::string_view text);

}  // namespace mqkit::proxy
