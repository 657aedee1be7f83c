#include "local_cluster.hpp"

#include <algorithm>

namespace mqkit::testing {

using plugin::v1::Status;

LocalCluster::LocalCluster(std::string test_name) : test_name_(std::move(test_name)), dir_(fresh_directory(test_name_)) {}

LocalCluster::~LocalCluster() {
  for (auto& p : proxies_) p.process.stop();
  for (auto& b : brokers_) b.process.stop();
  for (auto& n : namesrvs_) n.process.stop();
  // Store directories are large; logs live elsewhere (the test temp dir) and are kept.
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

Status LocalCluster::launch(const std::string& binary, Node& node) {
  MQKIT_ASSIGN_OR_RETURN(node.process, ChildProcess::spawn(binary, node.args, node.log_name));
  MQKIT_ASSIGN_OR_RETURN(node.port, node.process.wait_ready());
  return Status::ok();
}

Status LocalCluster::add_namesrv(const std::vector<std::string>& overrides) {
  Node node;
  node.log_name = test_name_ + "-namesrv" + std::to_string(namesrvs_.size());
  node.args = {"--set", "namesrv.listen_host=127.0.0.1", "--set", "namesrv.listen_port=0"};
  for (const auto& o : overrides) node.args.insert(node.args.end(), {"--set", o});
  MQKIT_RETURN_IF_ERROR(launch("mqnamesrv", node));
  namesrvs_.push_back(std::move(node));
  return Status::ok();
}

Status LocalCluster::add_broker(const BrokerSpec& spec) {
  Node node;
  // A master and its slaves share the broker name, not the store.
  const std::string node_name = spec.broker_id == 0 ? spec.name : spec.name + "-" + std::to_string(spec.broker_id);
  node.log_name = test_name_ + "-" + node_name;
  const auto store_dir = dir_ / node_name;
  node.args = {"--set", "broker.broker_name=" + spec.name, "--set", "broker.broker_cluster_name=" + spec.cluster,
               "--set", "broker.broker_ip1=127.0.0.1", "--set", "broker.listen_host=127.0.0.1",
               "--set", "broker.listen_port=0", "--set", "broker.namesrv_addr=" + namesrv_addrs(),
               "--set", "store.plugin=" + spec.store,
               // listen_port + 1 may be taken once a restart fixes listen_port: any free port.
               "--set", "broker.ha_listen_port=0"};
  if (spec.store == "commitlog") {
    // Small files: tests write little, and CI machines have limited disk.
    node.args.insert(node.args.end(), {"--set", "store.store_path=" + store_dir.string(), "--set",
                                       "store.mapped_file_size_commit_log=64MiB", "--set",
                                       "store.mapped_file_size_consume_queue=600000"});
  }
  if (spec.broker_id != 0) node.args.insert(node.args.end(), {"--set", "broker.broker_id=" + std::to_string(spec.broker_id)});
  if (!spec.role.empty()) node.args.insert(node.args.end(), {"--set", "broker.broker_role=" + spec.role});
  for (const auto& o : spec.overrides) node.args.insert(node.args.end(), {"--set", o});
  MQKIT_RETURN_IF_ERROR(launch("mqbroker", node));
  // Restarts keep the port, so clients and routes stay valid. A fixed port would also open the
  // fast port at port - 2, which the first run (port 0) did not have and which another test's
  // socket may hold by then: a restarted broker keeps the fast port as it was, off unless set.
  const bool fast_port_set =
      std::ranges::any_of(node.args, [](const std::string& a) { return a.starts_with("broker.fast_listen_port="); });
  for (auto& a : node.args) {
    if (a == "broker.listen_port=0") a = "broker.listen_port=" + std::to_string(node.port);
  }
  if (!fast_port_set) node.args.insert(node.args.end(), {"--set", "broker.fast_listen_port=0"});
  brokers_.push_back(std::move(node));
  return Status::ok();
}

Status LocalCluster::restart_broker(std::size_t i, bool crash) {
  Node& node = brokers_.at(i);
  if (crash) {
    node.process.kill();
  } else {
    node.process.stop();
  }
  node.log_name += "-restarted";
  return launch("mqbroker", node);
}

Status LocalCluster::add_proxy(const std::vector<std::string>& overrides) {
  Node node;
  node.log_name = test_name_ + "-proxy" + std::to_string(proxies_.size());
  node.args = {"--set", "proxy.listen_host=127.0.0.1", "--set", "proxy.listen_port=0",
               "--set", "client.namesrv_addr=" + namesrv_addrs()};
  for (const auto& o : overrides) node.args.insert(node.args.end(), {"--set", o});
  MQKIT_RETURN_IF_ERROR(launch("mqproxy", node));
  proxies_.push_back(std::move(node));
  return Status::ok();
}

std::string LocalCluster::namesrv_addrs() const {
  std::string out;
  for (std::size_t i = 0; i < namesrvs_.size(); ++i) out += (i ? ";" : "") + namesrv_addr(i);
  return out;
}

std::string LocalCluster::namesrv_addr(std::size_t i) const { return "127.0.0.1:" + std::to_string(namesrvs_.at(i).port); }
std::string LocalCluster::broker_addr(std::size_t i) const { return "127.0.0.1:" + std::to_string(brokers_.at(i).port); }
std::string LocalCluster::proxy_addr(std::size_t i) const { return "127.0.0.1:" + std::to_string(proxies_.at(i).port); }

}  // namespace mqkit::testing
