// BrokerContext: the broker's services, as request processors see them. Owned by the
// BrokerController, which outlives every processor; the pointers are never null once the
// controller has started.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "mqkit/broker/broker_config.hpp"
#include "mqkit/broker/broker_metrics.hpp"
#include "mqkit/broker/broker_stats.hpp"
#include "mqkit/broker/consumer_manager.hpp"
#include "mqkit/broker/consumer_offset_manager.hpp"
#include "mqkit/broker/long_polling_service.hpp"
#include "mqkit/broker/rebalance_lock_manager.hpp"
#include "mqkit/broker/subscription_group_manager.hpp"
#include "mqkit/broker/topic_config_manager.hpp"
#include "mqkit/kernel/dispatch_pipeline.hpp"
#include "mqkit/kernel/wall_clock.hpp"
#include "mqkit/plugin/v1/store.hpp"
#include "mqkit/protocol/store_bodies.hpp"

namespace mqkit::plugin::v1 {
class RequestQueue;  // runtime_figures.hpp
}

namespace mqkit::acl {
class AccessControl;
}

namespace mqkit::broker {

class ScheduleMessageService;
class TransactionService;
class PopService;  // src/consume/pop_service.hpp
class ReplicaAcks;
namespace ha {
class HaMaster;
}

// The machine's RAM in bytes (24 GiB when the OS does not say, as RocketMQ assumes).
std::int64_t total_physical_memory_bytes();

struct BrokerContext {
  const BrokerConfig* config = nullptr;
  plugin::v1::HostAddress store_host{};  // stamped into every record (offset message ids)
  std::shared_ptr<plugin::v1::MessageStore> store;
  kernel::DispatchPipeline* dispatch = nullptr;
  TopicConfigManager* topics = nullptr;
  ConsumerOffsetManager* offsets = nullptr;
  SubscriptionGroupManager* groups = nullptr;
  ConsumerManager* consumers = nullptr;
  ProducerManager* producers = nullptr;
  RebalanceLockManager* locks = nullptr;
  LongPollingService* long_polling = nullptr;
  ScheduleMessageService* schedule = nullptr;  // delayed messages (delay levels)
  TransactionService* transactions = nullptr;  // half messages, END_TRANSACTION, checks
  // Pop consumption's deliveries in flight, saved as popState.json with the consumer offsets.
  std::shared_ptr<PopService> pops;
  ReplicaAcks* replicas = nullptr;  // masters: what slaves acknowledged (SYNC_MASTER waits on it)
  ha::HaMaster* ha_master = nullptr;  // masters: woken after appends so slaves get them at once
  // GET_BROKER_HA_STATUS: a master's slaves or a slave's master; empty until replication starts.
  std::function<plugin::v1::Result<protocol::HaRuntimeInfo>()> ha_runtime_info;
  std::function<std::int64_t()> clock;  // milliseconds since the epoch
  // When the broker started (GET_BROKER_RUNTIME_INFO's bootTimestamp and runtime).
  std::int64_t boot_timestamp_ms = kernel::wall_clock_ms();
  // Registers these topics with every name server now and returns once they answered (RocketMQ's
  // registerIncrementBrokerData after an admin changed them), so a route query right after the
  // admin's answer sees the change. Does nothing before the broker's first registration.
  std::function<void(const std::vector<std::string>& topics)> register_topics_now;
  // The transport's requests waiting for a worker (GET_BROKER_RUNTIME_INFO's thread-pool queue
  // figures); null when the transport does not offer them.
  const plugin::v1::RequestQueue* request_queue = nullptr;
  // Messages stored and pulled (GET_BROKER_RUNTIME_INFO); never null.
  std::shared_ptr<BrokerStats> stats = std::make_shared<BrokerStats>();
  // What the Prometheus exporter reports (docs/metrics.md); null when metrics are off, and then
  // nothing is counted.
  std::shared_ptr<BrokerMetrics> metrics;
  // The ACL in force (docs/acl.md), changed by the ACL admin requests; null when acl_enable is off.
  std::shared_ptr<acl::AccessControl> access_control;
  // What access_message_in_memory_max_ratio is a share of (tests make it small).
  std::int64_t physical_memory_bytes = total_physical_memory_bytes();
};

}  // namespace mqkit::broker
