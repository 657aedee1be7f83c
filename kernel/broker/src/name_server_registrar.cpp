#include "mqkit/broker/name_server_registrar.hpp"

#include <zlib.h>

#include <future>

#include "mqkit/kernel/logging.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/header_fields.hpp"

namespace mqkit::broker {

using plugin::v1::RemotingCommand;
using plugin::v1::Result;

namespace {
constexpr std::chrono::milliseconds kRpcTimeout{6000};

// The controller has put the bound HA port in ha_listen_port (masters); a slave accepts no
// slaves, but registers the address RocketMQ would.
std::string ha_address(const BrokerConfig& c) {
  return c.broker_ip + ":" + std::to_string(c.ha_listen_port > 0 ? c.ha_listen_port : c.listen_port + 1);
}

// Sends one request to every name server at once and collects the answers.
std::vector<std::pair<std::string, Result<RemotingCommand>>> invoke_all(plugin::v1::Transport& transport,
                                                                        const std::vector<std::string>& addrs,
                                                                        const RemotingCommand& request) {
  std::vector<std::pair<std::string, std::future<Result<RemotingCommand>>>> pending;
  for (const auto& addr : addrs) {
    auto promise = std::make_shared<std::promise<Result<RemotingCommand>>>();
    pending.emplace_back(addr, promise->get_future());
    transport.invoke(addr, request, kRpcTimeout,
                     [promise](Result<RemotingCommand> response) { promise->set_value(std::move(response)); });
  }
  std::vector<std::pair<std::string, Result<RemotingCommand>>> out;
  for (auto& [addr, future] : pending) out.emplace_back(addr, future.get());
  return out;
}
}  // namespace

NameServerRegistrar::NameServerRegistrar(const BrokerConfig& config, std::shared_ptr<plugin::v1::Transport> transport,
                                         TopicConfigManager& topics)
    : config_(config), transport_(std::move(transport)), topics_(topics) {}

RemotingCommand NameServerRegistrar::registration_request(const std::vector<std::string>& topics) const {
  auto request = RemotingCommand::request(protocol::request_code::kRegisterBroker);
  protocol::RegisterBrokerBody body;
  body.topic_config_wrapper = topics.empty() ? topics_.snapshot() : topics_.snapshot_of(topics);
  if (topics.empty()) request.ext_fields.set(std::string(protocol::kFullTopicTableField), true);
  protocol::set_body(request, protocol::encode(body));
  request.ext_fields.set("brokerAddr", config_.address());
  request.ext_fields.set("brokerId", config_.broker_id);
  request.ext_fields.set("brokerName", config_.broker_name);
  request.ext_fields.set("clusterName", config_.cluster_name);
  request.ext_fields.set("haServerAddr", ha_address(config_));
  request.ext_fields.set("compressed", false);
  const auto crc = static_cast<std::int64_t>(crc32(0L, request.body.data(), static_cast<uInt>(request.body.size())) &
                                             0x7FFFFFFF);
  request.ext_fields.set("bodyCrc32", crc);
  return request;
}

std::size_t NameServerRegistrar::register_all() {
  std::lock_guard one_at_a_time(registering_);
  return send_registration(registration_request({}));
}

std::size_t NameServerRegistrar::register_topics(const std::vector<std::string>& topics) {
  if (topics.empty()) return 0;
  std::lock_guard one_at_a_time(registering_);
  return send_registration(registration_request(topics));
}

std::size_t NameServerRegistrar::send_registration(const RemotingCommand& request) {
  std::size_t accepted = 0;
  auto log = kernel::logger("broker");
  for (auto& [addr, response] : invoke_all(*transport_, config_.namesrv_addrs, request)) {
    if (!response) {
      log->warn("register to name server {} failed: {}", addr, response.status().to_string());
      continue;
    }
    if (response->code != protocol::response_code::kSuccess) {
      log->warn("name server {} refused the registration: code {} {}", addr, response->code,
                response->remark.value_or(""));
      continue;
    }
    ++accepted;
    if (auto master = response->ext_fields.get("masterAddr"); master && !master->empty()) {
      std::lock_guard lock(mutex_);
      master_address_ = std::string(*master);
    }
    if (auto ha = response->ext_fields.get("haServerAddr"); ha && !ha->empty()) {
      std::lock_guard lock(mutex_);
      master_ha_address_ = std::string(*ha);
    }
  }
  return accepted;
}

void NameServerRegistrar::unregister_all() {
  auto request = RemotingCommand::request(protocol::request_code::kUnregisterBroker);
  request.ext_fields.set("brokerAddr", config_.address());
  request.ext_fields.set("brokerId", config_.broker_id);
  request.ext_fields.set("brokerName", config_.broker_name);
  request.ext_fields.set("clusterName", config_.cluster_name);
  for (auto& [addr, response] : invoke_all(*transport_, config_.namesrv_addrs, request)) {
    if (!response) kernel::logger("broker")->warn("unregister from {} failed: {}", addr, response.status().to_string());
  }
}

std::string NameServerRegistrar::master_address() const {
  std::lock_guard lock(mutex_);
  return master_address_;
}

std::string NameServerRegistrar::master_ha_address() const {
  std::lock_guard lock(mutex_);
  return master_ha_address_;
}

}  // namespace mqkit::broker
