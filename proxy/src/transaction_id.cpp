#include "transaction_id.hpp"

#include <charconv>

namespace mqkit::proxy {

std::string encode_transaction_id(const ProxyTransactionId& id) {
  return id.broker_name + " " + std::to_string(id.tran_state_table_offset) + " " + std::to_string(id.commit_log_offset) +
         " " + id.broker_transaction_id;
}

plugin::v1::Result<ProxyTransactionId> decode_transaction_id(std::string_view text) {
  const auto refused = [&] {
    return plugin::v1::Status::invalid_argument("transaction id \"" + std::string(text) + "\" is not one mqproxy gave");
  };
  std::string_view fields[4];
  std::string_view rest = text;
  for (int i = 0; i < 3; ++i) {
    const auto space = rest.find(' ');
    if (space == std::string_view::npos || space == 0) return refused();
    fields[i] = rest.substr(0, space);
    rest = rest.substr(space + 1);
  }
  fields[3] = rest;
  ProxyTransactionId id;
  id.broker_name = std::string(fields[0]);
  for (const auto& [field, out] : {std::pair{fields[1], &id.tran_state_table_offset}, std::pair{fields[2], &id.commit_log_offset}}) {
    const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), *out);
    if (error != std::errc() || end != field.data() + field.size() || *out < 0) return refused();
  }
  if (fields[3].empty() || fields[3].find(' ') != std::string_view::npos) return refused();
  id.broker_transaction_id = std::string(fields[3]);
  return id;
}

}  // namespace mqkit::proxy
