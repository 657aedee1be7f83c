#include "mqkit/protocol/broker_stats_data.hpp"

#include "body_codec.hpp"
#include "mqkit/protocol/json_writer.hpp"

namespace mqkit::protocol {

namespace {

using detail::Fields;
using json::key;
using json::Writer;

constexpr std::string_view kWindows[] = {"statsDay", "statsHour", "statsMinute"};  // fastjson's order

BrokerStatsItem BrokerStatsData::*window_member(std::string_view name) {
  if (name == "statsDay") return &BrokerStatsData::stats_day;
  if (name == "statsHour") return &BrokerStatsData::stats_hour;
  return &BrokerStatsData::stats_minute;
}

}  // namespace

std::string encode(const BrokerStatsData& data) {
  return json::write_json([&](Writer& w) {
    w.StartObject();
    for (const std::string_view name : kWindows) {
      const BrokerStatsItem& item = data.*window_member(name);
      key(w, name), w.StartObject();
      key(w, "avgpt"), w.Double(item.avgpt);
      key(w, "sum"), w.Int64(item.sum);
      key(w, "tps"), w.Double(item.tps);
      w.EndObject();
    }
    w.EndObject();
  });
}

plugin::v1::Result<BrokerStatsData> decode_broker_stats_data(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, detail::parse(json, "BrokerStatsData"));
  BrokerStatsData data;
  Fields f(doc, "BrokerStatsData");
  for (const std::string_view name : kWindows) {
    const detail::Value* window = f.find(name);
    if (!window) continue;
    if (!window->IsObject()) return detail::wrong("BrokerStatsData", name, "an object");
    BrokerStatsItem& item = data.*window_member(name);
    Fields wf(*window, "BrokerStatsItem");
    MQKIT_RETURN_IF_ERROR(wf.get("sum", item.sum));
    MQKIT_RETURN_IF_ERROR(wf.get("tps", item.tps));
    MQKIT_RETURN_IF_ERROR(wf.get("avgpt", item.avgpt));
  }
  return data;
}

std::int64_t sum_of_last_day(const BrokerStatsData& data) {
  if (data.stats_day.sum != 0) return data.stats_day.sum;
  if (data.stats_hour.sum != 0) return data.stats_hour.sum;
  return data.stats_minute.sum;
}

std::string stats_key(std::string_view topic, std::string_view group) {
  std::string key;
  key.reserve(topic.size() + 1 + group.size());
  key.append(topic).append(1, '@').append(group);
  return key;
}

}  // namespace mqkit::protocol
