#include "mqkit/protocol/pop_receipt.hpp"

#include <charconv>
#include <vector>

namespace mqkit::protocol {

using plugin::v1::Result;
using plugin::v1::Status;

std::string encode_pop_receipt(const PopReceipt& r) {
  std::string text;
  const auto field = [&text](std::string_view value) {
    if (!text.empty()) text += ' ';
    text += value;
  };
  field(std::to_string(r.ck_queue_offset));
  field(std::to_string(r.pop_time));
  field(std::to_string(r.invisible_ms));
  field(std::to_string(r.revive_qid));
  field(r.retry);
  field(r.broker_name);
  field(std::to_string(r.queue_id));
  if (r.offset >= 0) field(std::to_string(r.offset));
  return text;
}

namespace {

template <typename Int>
bool parse(std::string_view text, Int& out) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace

Result<PopReceipt> decode_pop_receipt(std::string_view text) {
  std::vector<std::string_view> fields;
  for (std::size_t start = 0; start <= text.size();) {
    const auto space = text.find(' ', start);
    fields.push_back(text.substr(start, space == std::string_view::npos ? std::string_view::npos : space - start));
    if (space == std::string_view::npos) break;
    start = space + 1;
  }
  const auto refused = [&](const std::string& why) {
    return Status::invalid_argument("receipt \"" + std::string(text) + "\": " + why);
  };
  if (fields.size() < 7) return refused("has " + std::to_string(fields.size()) + " fields, RocketMQ's extraInfo has 7 or 8");
  PopReceipt r;
  if (!parse(fields[0], r.ck_queue_offset) || !parse(fields[1], r.pop_time) || !parse(fields[2], r.invisible_ms) ||
      !parse(fields[3], r.revive_qid) || !parse(fields[6], r.queue_id) || (fields.size() > 7 && !parse(fields[7], r.offset))) {
    return refused("a number field is not a number");
  }
  // Times a client hands back stay where their sums cannot overflow (year ~33,000 at most).
  constexpr std::int64_t kMaxMs = 1'000'000'000'000'000;
  if (r.pop_time < 0 || r.pop_time > kMaxMs || r.invisible_ms < 0 || r.invisible_ms > kMaxMs) {
    return refused("pop time or invisible time out of range");
  }
  r.retry = std::string(fields[4]);
  r.broker_name = std::string(fields[5]);
  if (r.broker_name.empty()) return refused("names no broker");
  return r;
}

}  // namespace mqkit::protocol
