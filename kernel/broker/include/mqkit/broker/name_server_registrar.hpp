// NameServerRegistrar: keeps this broker registered with every configured name server
// (REGISTER_BROKER with the full topic table every period and after topic changes, in parallel,
// failures logged), and unregisters at shutdown (rocketmq-facts §1.12). Thread-safe.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "mqkit/broker/broker_config.hpp"
#include "mqkit/broker/topic_config_manager.hpp"
#include "mqkit/plugin/v1/transport.hpp"

namespace mqkit::broker {

class NameServerRegistrar {
 public:
  NameServerRegistrar(const BrokerConfig& config, std::shared_ptr<plugin::v1::Transport> transport,
                      TopicConfigManager& topics);
  // The registrar keeps a reference to the broker's live settings: a temporary would dangle.
  NameServerRegistrar(BrokerConfig&&, std::shared_ptr<plugin::v1::Transport>, TopicConfigManager&) = delete;

  // Registers with every name server and waits for the answers (bounded by the RPC timeout).
  // Returns how many accepted the registration.
  std::size_t register_all();
  void unregister_all();
  // The master address learnt from the last registration (for slaves), empty otherwise.
  std::string master_address() const;
  // The master's HA address (haServerAddr) learnt from the last registration (for slaves).
  std::string master_ha_address() const;

 private:
  plugin::v1::RemotingCommand registration_request() const;

  const BrokerConfig& config_;
  std::shared_ptr<plugin::v1::Transport> transport_;
  TopicConfigManager& topics_;
  mutable std::mutex mutex_;
  std::string master_address_;
  std::string master_ha_address_;
};

}  // namespace mqkit::broker
