// clusterList: every broker of every cluster with its address and load (RocketMQ's columns, from
// each broker's runtime info). wipeWritePerm / addWritePerm: a broker name's write permission on
// every name server.
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "admin.hpp"
#include "json_output.hpp"

namespace mqkit::admin {

namespace {

// One broker process's row: what its runtime info (GET_BROKER_RUNTIME_INFO) says, read as
// RocketMQ's ClusterListSubCommand reads it.
struct BrokerRow {
  std::string cluster;
  std::string name;
  std::int64_t id = 0;
  std::string address;
  std::map<std::string, std::string> runtime;  // empty when the broker did not answer
  std::string error;

  std::string value(const std::string& key) const {
    auto it = runtime.find(key);
    return it == runtime.end() ? "" : it->second;
  }
  std::int64_t number(const std::string& key) const {
    std::int64_t n = 0;
    const std::string text = value(key);
    std::from_chars(text.data(), text.data() + text.size(), n);
    return n;
  }
  // The first of "putTps"'s space-separated windows (the last 10 s); 0 while it is empty.
  double tps(const std::string& key) const {
    const std::string text = value(key);
    return std::strtod(text.substr(0, text.find(' ')).c_str(), nullptr);
  }
  // Hours since the oldest message still stored was written; 0 when there is none.
  double hours(std::int64_t now_ms) const {
    const std::int64_t earliest = number("earliestMessageTimeStamp");
    return earliest > 0 ? static_cast<double>(now_ms - earliest) / 3'600'000.0 : 0.0;
  }
  double space() const { return std::strtod(value("commitLogDiskRatio").c_str(), nullptr); }
  // Messages in and out between two of the broker's running totals.
  std::int64_t between(const char* kind, const char* from, const char* to) const {
    return number(std::string("msg") + kind + "Total" + to) - number(std::string("msg") + kind + "Total" + from);
  }
};

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// "12.50(3,1ms)": the rate over the last 10 s, then (queued requests, the oldest one's wait).
std::string rate_and_load(const BrokerRow& row, const char* rate_key, const std::string& pool) {
  return fixed(row.tps(rate_key), 2) + "(" + row.value(pool + "ThreadPoolQueueSize") + "," +
         row.value(pool + "ThreadPoolQueueHeadWaitTimeMills") + "ms)";
}

std::int64_t wall_clock_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

client::Result<std::vector<BrokerRow>> broker_rows(AdminContext& ctx) {
  auto info = ctx.api().get_cluster_info();
  if (!info) return info.status();
  std::vector<BrokerRow> rows;
  for (const auto& [cluster, names] : info->cluster_addr_table) {
    for (const auto& name : names) {
      auto broker = info->broker_addr_table.find(name);
      if (broker == info->broker_addr_table.end()) continue;
      for (const auto& [id, address] : broker->second.broker_addrs) {
        BrokerRow row{cluster, name, id, address, {}, {}};
        if (auto runtime = ctx.api().get_broker_runtime_info(address)) {
          row.runtime = std::move(runtime->table);
        } else {
          row.error = runtime.status().to_string();
        }
        rows.push_back(std::move(row));
      }
    }
  }
  return rows;
}

void print_json(AdminContext& ctx, const std::vector<BrokerRow>& rows, std::int64_t now_ms) {
  // {cluster: [{brokerName, brokerAddrs: {id: address}, brokers: [{id, addr, figures or error}]}]}
  JsonOut json;
  json.w().StartObject();
  for (std::size_t i = 0; i < rows.size();) {
    const std::string& cluster = rows[i].cluster;
    json.key(cluster);
    json.w().StartArray();
    while (i < rows.size() && rows[i].cluster == cluster) {
      const std::string& name = rows[i].name;
      const std::size_t first = i;
      while (i < rows.size() && rows[i].cluster == cluster && rows[i].name == name) ++i;
      json.w().StartObject();
      json.field("brokerName", name);
      json.key("brokerAddrs");
      json.w().StartObject();
      for (std::size_t j = first; j < i; ++j) json.field(std::to_string(rows[j].id), rows[j].address);
      json.w().EndObject();
      json.key("brokers");
      json.w().StartArray();
      for (std::size_t j = first; j < i; ++j) {
        const BrokerRow& row = rows[j];
        json.w().StartObject();
        json.field("brokerId", row.id);
        json.field("brokerAddr", row.address);
        if (!row.error.empty()) {
          json.field("error", row.error);
        } else {
          json.field("version", row.value("brokerVersionDesc"));
          json.field("inTps", row.tps("putTps"));
          json.field("outTps", row.tps("getTransferedTps"));
          json.field("sendQueueSize", row.number("sendThreadPoolQueueSize"));
          json.field("sendQueueHeadWaitMs", row.number("sendThreadPoolQueueHeadWaitTimeMills"));
          json.field("pullQueueSize", row.number("pullThreadPoolQueueSize"));
          json.field("pullQueueHeadWaitMs", row.number("pullThreadPoolQueueHeadWaitTimeMills"));
          json.field("pageCacheLockTimeMs", row.number("pageCacheLockTimeMills"));
          json.field("hours", row.hours(now_ms));
          json.field("space", row.space());
          json.field("inTotalYest", row.between("Put", "YesterdayMorning", "TodayMorning"));
          json.field("outTotalYest", row.between("Get", "YesterdayMorning", "TodayMorning"));
          json.field("inTotalToday", row.between("Put", "TodayMorning", "TodayNow"));
          json.field("outTotalToday", row.between("Get", "TodayMorning", "TodayNow"));
        }
        json.w().EndObject();
      }
      json.w().EndArray();
      json.w().EndObject();
    }
    json.w().EndArray();
  }
  json.w().EndObject();
  json.print(*ctx.out);
}

void print_table(AdminContext& ctx, const std::vector<BrokerRow>& rows, bool more, std::int64_t now_ms) {
  if (more) {
    Table table({"#Cluster Name", "#Broker Name", "#InTotalYest", "#OutTotalYest", "#InTotalToday", "#OutTotalToday"});
    for (const auto& row : rows) {
      if (!row.error.empty()) {
        table.add({row.cluster, row.name, "-", "-", "-", "-"});
        continue;
      }
      table.add({row.cluster, row.name, std::to_string(row.between("Put", "YesterdayMorning", "TodayMorning")),
                 std::to_string(row.between("Get", "YesterdayMorning", "TodayMorning")),
                 std::to_string(row.between("Put", "TodayMorning", "TodayNow")),
                 std::to_string(row.between("Get", "TodayMorning", "TodayNow"))});
    }
    table.print(*ctx.out);
    return;
  }
  Table table({"#Cluster Name", "#Broker Name", "#BID", "#Addr", "#Version", "#InTPS(LOAD)", "#OutTPS(LOAD)",
               "#PCWait(ms)", "#Hour", "#SPACE"});
  for (const auto& row : rows) {
    if (!row.error.empty()) {
      table.add({row.cluster, row.name, std::to_string(row.id), row.address, "-", "-", "-", "-", "-", "-"});
      continue;
    }
    table.add({row.cluster, row.name, std::to_string(row.id), row.address, row.value("brokerVersionDesc"),
               rate_and_load(row, "putTps", "send"), rate_and_load(row, "getTransferedTps", "pull"),
               row.value("pageCacheLockTimeMills"), fixed(row.hours(now_ms), 2), fixed(row.space(), 4)});
  }
  table.print(*ctx.out);
}

}  // namespace

int cluster_list(AdminContext& ctx, const ClusterListOptions& options) {
  for (bool first = true;; first = false) {
    if (!first) std::this_thread::sleep_for(std::chrono::seconds(options.interval_s));
    auto rows = broker_rows(ctx);
    if (!rows) return ctx.fail("clusterList", rows.status());
    const std::int64_t now_ms = wall_clock_ms();
    if (ctx.json) {
      print_json(ctx, *rows, now_ms);
    } else {
      print_table(ctx, *rows, options.more, now_ms);
    }
    int code = 0;
    for (const auto& row : *rows) {
      if (!row.error.empty()) code = ctx.fail("runtime info of broker " + row.name + " at " + row.address + ": " + row.error);
    }
    ctx.out->flush();
    if (options.interval_s <= 0) return code;
  }
}

int set_write_perm(AdminContext& ctx, const std::string& broker_name, bool writable) {
  const char* verb = writable ? "add" : "wipe";
  const auto addresses = ctx.api().namesrv_addresses();
  if (addresses.empty()) return ctx.fail("no name server address (-n)");
  JsonOut json;
  json.w().StartArray();
  int failures = 0;
  for (const auto& address : addresses) {
    auto changed = ctx.api().set_write_perm_of_broker(address, broker_name, writable);
    if (!changed) {
      ++failures;
      std::cerr << verb << " write perm of broker[" << broker_name << "] in name server[" << address
                << "] failed: " << changed.status().to_string() << "\n";
      continue;
    }
    if (ctx.json) {
      json.w().StartObject();
      json.field("namesrvAddr", address);
      json.field("brokerName", broker_name);
      json.field(writable ? "addTopicCount" : "wipeTopicCount", *changed);
      json.w().EndObject();
    } else {
      // RocketMQ's WipeWritePermSubCommand / AddWritePermSubCommand line.
      *ctx.out << verb << " write perm of broker[" << broker_name << "] in name server[" << address << "] OK, "
               << *changed << "\n";
    }
  }
  json.w().EndArray();
  if (ctx.json) json.print(*ctx.out);
  return failures == 0 ? 0 : 1;
}

}  // namespace mqkit::admin
