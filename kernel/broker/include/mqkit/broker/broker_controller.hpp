// BrokerController: the mqbroker process as a lifecycle component. Owns the store and
// transport plugins it is given, the broker's services, the dispatch pipeline and the periodic
// tasks, and starts/stops them in order:
//   start: store recovery → metadata → dispatch → processors (behind the ACL check when
//          acl_enable) → listen → replication (master:
//          accept slaves; slave: follow the master) → delayed delivery and transaction checks
//          (masters only) → registration with name servers → periodic tasks → metrics exporter
//          (when metrics_exporter_type is PROM)
//   stop:  metrics exporter → periodic tasks → unregister → replication (waiting sends answered) → held pulls
//          answered → transaction checks and delayed delivery → transport → dispatch → offsets
//          and pop state persisted (when they were loaded) → store shutdown
#pragma once

#include <atomic>
#include <memory>

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/broker/metadata_files.hpp"
#include "mqkit/broker/name_server_registrar.hpp"
#include "mqkit/broker/request_processor.hpp"
#include "mqkit/kernel/lifecycle.hpp"
#include "mqkit/kernel/periodic_tasks.hpp"
#include "mqkit/metrics/http_exporter.hpp"
#include "mqkit/plugin/v1/transport.hpp"

namespace mqkit::acl {
class AccessControl;
}

namespace mqkit::broker {

class ReplicaAcks;
namespace ha {
class HaMaster;
class HaClient;
}  // namespace ha

class BrokerController final : public kernel::Component {
 public:
  // With acl_enable, `access_control` holds the loaded ACL file (the controller loads
  // config.acl_file at start when it is null).
  BrokerController(BrokerConfig config, std::shared_ptr<plugin::v1::MessageStore> store,
                   std::shared_ptr<plugin::v1::Transport> transport,
                   std::shared_ptr<acl::AccessControl> access_control = nullptr);
  ~BrokerController() override;

  std::string_view name() const noexcept override { return "broker"; }
  plugin::v1::Status start() override;
  void stop() noexcept override;

  // The port actually bound (listen_port 0 picks a free one) and the advertised address.
  std::uint16_t port() const noexcept { return config_.listen_port; }
  std::string address() const { return config_.address(); }
  BrokerContext& context() noexcept { return context_; }
  // The metrics exporter's port (0 when metrics are off).
  std::uint16_t metrics_port() const noexcept { return metrics_port_; }

 private:
  plugin::v1::Status start_services();
  plugin::v1::Status start_fast_listener(bool any_listen_port);
  plugin::v1::Status start_replication(bool any_listen_port);
  plugin::v1::Status start_access_control();
  void register_all();
  // Slave: takes the master's topic configs, consumer and delay offsets and subscription groups.
  void synchronize_from_master();
  void notify_group_change(const std::string& group, const std::vector<ClientConnection>& members);

  BrokerConfig config_;
  std::shared_ptr<plugin::v1::MessageStore> store_;
  std::shared_ptr<plugin::v1::Transport> transport_;
  StoreMetadataFiles files_;
  std::unique_ptr<TopicConfigManager> topics_;
  std::unique_ptr<ConsumerOffsetManager> offsets_;
  std::unique_ptr<SubscriptionGroupManager> groups_;
  ConsumerManager consumers_;
  ProducerManager producers_;
  std::unique_ptr<RebalanceLockManager> locks_;
  std::unique_ptr<LongPollingService> long_polling_;
  std::unique_ptr<kernel::DispatchPipeline> dispatch_;
  std::shared_ptr<BrokerRequestHandler> handler_;
  std::shared_ptr<acl::AccessControl> access_control_;
  std::unique_ptr<NameServerRegistrar> registrar_;
  std::shared_ptr<void> extra_services_;  // processors' own services (delayed delivery, transactions)
  std::unique_ptr<ReplicaAcks> replicas_;
  std::unique_ptr<ha::HaMaster> ha_master_;
  std::unique_ptr<ha::HaClient> ha_client_;
  kernel::PeriodicTasks tasks_;
  std::unique_ptr<metrics::HttpExporter> exporter_;
  std::uint16_t metrics_port_ = 0;
  std::atomic<bool> registration_needed_{false};
  std::atomic<bool> registered_once_{false};  // registrar_ is set and the first registration ran
  BrokerContext context_;
  bool started_ = false;
  bool consumption_loaded_ = false;  // offsets and pop state loaded: stop() may save them
};

// Adds every request processor to `handler` and returns the services they need kept alive and
// started (delayed-message delivery, transaction checks). Defined with the processors.
plugin::v1::Result<std::shared_ptr<void>> install_processors(BrokerRequestHandler& handler, BrokerContext& context,
                                                             MetadataFiles& files);
// Starts those services (after the dispatch pipeline runs) and stops them.
plugin::v1::Status start_processor_services(const std::shared_ptr<void>& services);
void stop_processor_services(const std::shared_ptr<void>& services) noexcept;

// The first non-loopback IPv4 address of this host, or 127.0.0.1.
std::string local_ipv4_address();

}  // namespace mqkit::broker
