// LocalCluster: real mqnamesrv, mqbroker and mqproxy processes on 127.0.0.1 with ephemeral ports,
// each broker with its own store directory — the world integration and interop tests run in.
// Processes are stopped by PID when the cluster is destroyed.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "child_process.hpp"

namespace mqkit::testing {

struct BrokerSpec {
  std::string name = "broker-a";
  std::string cluster = "DefaultCluster";
  std::string store = "commitlog";         // store plugin
  std::vector<std::string> overrides{};    // extra --set values
  // Replication: a slave (id > 0, role SLAVE) shares `name` with its master and follows it.
  std::int64_t broker_id = 0;
  std::string role{};                      // broker_role; empty = the default (ASYNC_MASTER)
};

class LocalCluster {
 public:
  explicit LocalCluster(std::string test_name);
  ~LocalCluster();

  // Starts one more name server; extra --set values apply to it.
  plugin::v1::Status add_namesrv(const std::vector<std::string>& overrides = {});
  // Starts one more broker registered with every name server started so far.
  plugin::v1::Status add_broker(const BrokerSpec& spec);
  // Stops broker i (SIGTERM, or SIGKILL when `crash`) and starts it again on the same port and store.
  plugin::v1::Status restart_broker(std::size_t i, bool crash = false);
  // Starts one more gRPC proxy (RocketMQ 5's MessagingService) forwarding to every name server
  // started so far; extra --set values apply to it.
  plugin::v1::Status add_proxy(const std::vector<std::string>& overrides = {});

  std::string namesrv_addrs() const;             // "127.0.0.1:p1;127.0.0.1:p2"
  std::string namesrv_addr(std::size_t i) const;  // "127.0.0.1:p"
  std::string broker_addr(std::size_t i) const;
  std::string proxy_addr(std::size_t i) const;    // "127.0.0.1:p", the proxy's gRPC endpoint
  ChildProcess& namesrv(std::size_t i) { return namesrvs_[i].process; }
  ChildProcess& broker(std::size_t i) { return brokers_[i].process; }
  ChildProcess& proxy(std::size_t i) { return proxies_[i].process; }
  const std::filesystem::path& directory() const noexcept { return dir_; }

 private:
  struct Node {
    ChildProcess process;
    int port = 0;
    std::vector<std::string> args;
    std::string log_name;
  };
  plugin::v1::Status launch(const std::string& binary, Node& node);

  std::string test_name_;
  std::filesystem::path dir_;
  std::vector<Node> namesrvs_;
  std::vector<Node> brokers_;
  std::vector<Node> proxies_;
};

}  // namespace mqkit::testing
