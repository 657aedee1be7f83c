// NameServerRegistrar: keeps this broker registered with every configured name server
// (REGISTER_BROKER with the full topic table every period and after topic changes, in parallel,
// failures logged; the topics an admin just changed at once, alone), and unregisters at shutdown
// (rocketmq-facts §1.12). Thread-safe.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
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
  // The same with only `topics` in the body and the table's data version (RocketMQ's
  // registerIncrementBrokerData): the name servers merge them, so a topic's creation costs one
  // topic's registration, not the whole table's. Topics the broker no longer has are skipped.
  std::size_t register_topics(const std::vector<std::string>& topics);
  void unregister_all();
  // The master address learnt from the last registration (for slaves), empty otherwise.
  std::string master_address() const;
  // The master's HA address (haServerAddr) learnt from the last registration (for slaves).
  std::string master_ha_address() const;

 private:
  // `topics` empty: the whole table, marked as such (protocol::kFullTopicTableField).
  plugin::v1::RemotingCommand registration_request(const std::vector<std::string>& topics) const;
  std::size_t send_registration(const plugin::v1::RemotingCommand& request);

  const BrokerConfig& config_;
  std::shared_ptr<plugin::v1::Transport> transport_;
  TopicConfigManager& topics_;
  // Held from a registration's snapshot of the table until every name server answered, so name
  // servers see this broker's data versions in order. Without it a whole table taken before a
  // topic's creation could arrive after that topic's own registration, drop it, and leave the
  // name server at the version the next whole table carries: never redone.
  std::mutex registering_;
  mutable std::mutex mutex_;
  std::string master_address_;
  std::string master_ha_address_;
};

}  // namespace mqkit::broker
