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
#include "mqkit/kernel/wall_clock.hpp"

namespace mqkit::admin {

namespace {

// One broker process's runtime info (GET_BROKER_RUNTIME_INFO), read as RocketMQ's
// ClusterListSubCommand reads it.
struct BrokerFigures {
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

// The name server's view of the clusters and every broker's figures, by address.
struct ClusterView {
  protocol::ClusterInfo info;
  std::map<std::string, BrokerFigures> by_address;
};

// Calls fn(cluster, broker name, broker id, address) for every broker process, clusters and
// names in order, masters first.
template <typename Fn>
void for_each_broker(const protocol::ClusterInfo& info, Fn fn) {
  for (const auto& [cluster, names] : info.cluster_addr_table) {
    for (const auto& name : names) {
      auto broker = info.broker_addr_table.find(name);
      if (broker == info.broker_addr_table.end()) continue;
      for (const auto& [id, address] : broker->second.broker_addrs) fn(cluster, name, id, address);
    }
  }
}

// "12.50(3,1ms)": the rate over the last 10 s, then (queued requests, the oldest one's wait).
std::string rate_and_load(const BrokerFigures& broker, const char* rate_key, const std::string& pool) {
  return fixed(broker.tps(rate_key), 2) + "(" + broker.value(pool + "ThreadPoolQueueSize") + "," +
         broker.value(pool + "ThreadPoolQueueHeadWaitTimeMills") + "ms)";
}

client::Result<ClusterView> cluster_view(AdminContext& ctx) {
  auto info = ctx.api().get_cluster_info();
  if (!info) return info.status();
  ClusterView view{std::move(info).value(), {}};
  for_each_broker(view.info, [&](const std::string&, const std::string&, std::int64_t, const std::string& address) {
    BrokerFigures& figures = view.by_address[address];
    if (auto runtime = ctx.api().get_broker_runtime_info(address)) {
      figures.runtime = std::move(runtime->table);
    } else {
      figures.error = runtime.status().to_string();
    }
  });
  return view;
}

void print_json(AdminContext& ctx, const ClusterView& view, std::int64_t now_ms) {
  // {cluster: [{brokerName, brokerAddrs: {id: address}, brokers: [{id, addr, figures or error}]}]}
  JsonOut json;
  json.w().StartObject();
  for (const auto& [cluster, names] : view.info.cluster_addr_table) {
    json.key(cluster);
    json.w().StartArray();
    for (const auto& name : names) {
      auto broker = view.info.broker_addr_table.find(name);
      if (broker == view.info.broker_addr_table.end()) continue;
      const auto& addresses = broker->second.broker_addrs;
      json.w().StartObject();
      json.field("brokerName", name);
      json.key("brokerAddrs");
      json.w().StartObject();
      for (const auto& [id, address] : addresses) json.field(std::to_string(id), address);
      json.w().EndObject();
      json.key("brokers");
      json.w().StartArray();
      for (const auto& [id, address] : addresses) {
        const BrokerFigures& figures = view.by_address.at(address);
        json.w().StartObject();
        json.field("brokerId", id);
        json.field("brokerAddr", address);
        if (!figures.error.empty()) {
          json.field("error", figures.error);
        } else {
          json.field("version", figures.value("brokerVersionDesc"));
          json.field("inTps", figures.tps("putTps"));
          json.field("outTps", figures.tps("getTransferedTps"));
          json.field("sendQueueSize", figures.number("sendThreadPoolQueueSize"));
          json.field("sendQueueHeadWaitMs", figures.number("sendThreadPoolQueueHeadWaitTimeMills"));
          json.field("pullQueueSize", figures.number("pullThreadPoolQueueSize"));
          json.field("pullQueueHeadWaitMs", figures.number("pullThreadPoolQueueHeadWaitTimeMills"));
          json.field("pageCacheLockTimeMs", figures.number("pageCacheLockTimeMills"));
          json.field("hours", figures.hours(now_ms));
          json.field("space", figures.space());
          json.field("inTotalYest", figures.between("Put", "YesterdayMorning", "TodayMorning"));
          json.field("outTotalYest", figures.between("Get", "YesterdayMorning", "TodayMorning"));
          json.field("inTotalToday", figures.between("Put", "TodayMorning", "TodayNow"));
          json.field("outTotalToday", figures.between("Get", "TodayMorning", "TodayNow"));
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

void print_table(AdminContext& ctx, const ClusterView& view, bool more, std::int64_t now_ms) {
  if (more) {
    Table table({"#Cluster Name", "#Broker Name", "#InTotalYest", "#OutTotalYest", "#InTotalToday", "#OutTotalToday"});
    for_each_broker(view.info, [&](const std::string& cluster, const std::string& name, std::int64_t,
                                   const std::string& address) {
      const BrokerFigures& figures = view.by_address.at(address);
      if (!figures.error.empty()) return table.add({cluster, name, "-", "-", "-", "-"});
      table.add({cluster, name, std::to_string(figures.between("Put", "YesterdayMorning", "TodayMorning")),
                 std::to_string(figures.between("Get", "YesterdayMorning", "TodayMorning")),
                 std::to_string(figures.between("Put", "TodayMorning", "TodayNow")),
                 std::to_string(figures.between("Get", "TodayMorning", "TodayNow"))});
    });
    table.print(*ctx.out);
    return;
  }
  Table table({"#Cluster Name", "#Broker Name", "#BID", "#Addr", "#Version", "#InTPS(LOAD)", "#OutTPS(LOAD)",
               "#PCWait(ms)", "#Hour", "#SPACE"});
  for_each_broker(view.info, [&](const std::string& cluster, const std::string& name, std::int64_t id,
                                 const std::string& address) {
    const BrokerFigures& figures = view.by_address.at(address);
    if (!figures.error.empty()) {
      return table.add({cluster, name, std::to_string(id), address, "-", "-", "-", "-", "-", "-"});
    }
    table.add({cluster, name, std::to_string(id), address, figures.value("brokerVersionDesc"),
               rate_and_load(figures, "putTps", "send"), rate_and_load(figures, "getTransferedTps", "pull"),
               figures.value("pageCacheLockTimeMills"), fixed(figures.hours(now_ms), 2), fixed(figures.space(), 4)});
  });
  table.print(*ctx.out);
}

}  // namespace

int cluster_list(AdminContext& ctx, const ClusterListOptions& options) {
  for (bool first = true;; first = false) {
    if (!first) std::this_thread::sleep_for(std::chrono::seconds(options.interval_s));
    auto view = cluster_view(ctx);
    if (!view) return ctx.fail("clusterList", view.status());
    const std::int64_t now_ms = kernel::wall_clock_ms();
    if (ctx.json) {
      print_json(ctx, *view, now_ms);
    } else {
      print_table(ctx, *view, options.more, now_ms);
    }
    int code = 0;
    for_each_broker(view->info, [&](const std::string&, const std::string& name, std::int64_t,
                                    const std::string& address) {
      const BrokerFigures& figures = view->by_address.at(address);
      if (!figures.error.empty()) code = ctx.fail("runtime info of broker " + name + " at " + address + ": " + figures.error);
    });
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
