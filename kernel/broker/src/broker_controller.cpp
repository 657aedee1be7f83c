#include "mqkit/broker/broker_controller.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <unistd.h>

#include <chrono>

#include "consume/pop_service.hpp"
#include "ha/ha_client.hpp"
#include "ha/ha_master.hpp"
#include "ha/slave_synchronize.hpp"
#include "mqkit/acl/access_control.hpp"
#include "mqkit/broker/broker_metrics_page.hpp"
#include "mqkit/broker/ha/replica_acks.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/plugin/v1/runtime_figures.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/kernel/wall_clock.hpp"

namespace mqkit::broker {

using plugin::v1::Status;

std::string local_ipv4_address() {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return "127.0.0.1";
  std::string found = "127.0.0.1";
  for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
    const auto* in = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
    if ((ntohl(in->sin_addr.s_addr) >> 24) == 127) continue;
    char text[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
    found = text;
    break;
  }
  freeifaddrs(list);
  return found;
}

namespace {

// The consumption state, every flush_consumer_offset_interval_ms and at shutdown. Pop state is
// reconciled with the offsets at load, so either may be the newer one after a crash.
void persist_consumption(const ConsumerOffsetManager* offsets, PopService* pops) {
  if (offsets) {
    if (auto s = offsets->persist(); !s) kernel::logger("broker")->error("persisting offsets: {}", s.to_string());
  }
  if (pops) {
    if (auto s = pops->persist(); !s) kernel::logger("broker")->error("persisting pop state: {}", s.to_string());
  }
}

}  // namespace

std::int64_t total_physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return std::int64_t{24} * 1024 * 1024 * 1024;
  return static_cast<std::int64_t>(pages) * page_size;
}

BrokerController::BrokerController(BrokerConfig config, std::shared_ptr<plugin::v1::MessageStore> store,
                                   std::shared_ptr<plugin::v1::Transport> transport,
                                   std::shared_ptr<acl::AccessControl> access_control)
    : config_(std::move(config)),
      store_(store),
      transport_(std::move(transport)),
      files_(std::move(store)),
      access_control_(std::move(access_control)) {}

BrokerController::~BrokerController() { stop(); }

Status BrokerController::start() {
  if (config_.broker_ip.empty()) config_.broker_ip = local_ipv4_address();
  Status s = start_services();
  if (!s) stop();
  return s;
}

Status BrokerController::start_services() {
  auto log = kernel::logger("broker");
  auto recovered = store_->start();
  if (!recovered) return recovered.status().with_context("starting the store");
  started_ = true;
  log->info("store recovered ({} shutdown): commit log [{}, {}), truncated {} bytes, dispatch from {}",
            recovered->clean_shutdown ? "clean" : "unclean", recovered->commit_log_min_offset,
            recovered->commit_log_max_offset, recovered->truncated_bytes, recovered->dispatch_from_offset);

  topics_ = std::make_unique<TopicConfigManager>(config_, files_);
  offsets_ = std::make_unique<ConsumerOffsetManager>(files_);
  groups_ = std::make_unique<SubscriptionGroupManager>(config_, files_);
  MQKIT_RETURN_IF_ERROR(topics_->load());
  MQKIT_RETURN_IF_ERROR(offsets_->load());
  MQKIT_RETURN_IF_ERROR(groups_->load());
  locks_ = std::make_unique<RebalanceLockManager>(config_.lock_max_live_time_ms);
  long_polling_ = std::make_unique<LongPollingService>(&kernel::wall_clock_ms);
  dispatch_ = std::make_unique<kernel::DispatchPipeline>(store_);
  dispatch_->add_dispatcher(long_polling_.get());

  context_.config = &config_;
  context_.store = store_;
  context_.dispatch = dispatch_.get();
  context_.topics = topics_.get();
  context_.offsets = offsets_.get();
  context_.groups = groups_.get();
  context_.consumers = &consumers_;
  context_.producers = &producers_;
  context_.locks = locks_.get();
  context_.long_polling = long_polling_.get();
  context_.clock = &kernel::wall_clock_ms;
  context_.boot_timestamp_ms = kernel::wall_clock_ms();
  context_.request_queue = static_cast<const plugin::v1::RequestQueue*>(transport_->extension(plugin::v1::kRequestQueueId));
  // After the consumer offsets, which it is reconciled with. A slave serves no pops (clients pop
  // from masters) and does not copy its master's: its document stays as it was.
  context_.pops = std::make_shared<PopService>(context_, files_);
  MQKIT_RETURN_IF_ERROR(context_.pops->load());
  consumption_loaded_ = true;

  handler_ = std::make_shared<BrokerRequestHandler>();
  if (config_.metrics_exporter.enabled) {
    context_.metrics = std::make_shared<BrokerMetrics>();
    handler_->record_latency_in(&context_.metrics->rpc());
  }
  handler_->on_channel_closed([this](std::uint64_t id) {
    consumers_.on_channel_closed(id);
    producers_.on_channel_closed(id);
  });
  consumers_.set_listener([this](const std::string& group, GroupEvent, const std::vector<ClientConnection>& members) {
    notify_group_change(group, members);
  });
  context_.register_topics_now = [this](const std::vector<std::string>& topics) {
    if (!registered_once_.load(std::memory_order_acquire)) return;  // the first registration comes
    registrar_->register_topics(topics);
  };
  MQKIT_ASSIGN_OR_RETURN(extra_services_, install_processors(*handler_, context_, files_));
  MQKIT_RETURN_IF_ERROR(start_access_control());
  dispatch_->start(recovered->dispatch_from_offset);
  long_polling_->start();

  const bool any_listen_port = config_.listen_port == 0;
  auto port = transport_->listen({config_.listen_host, config_.listen_port}, handler_);
  if (!port) return port.status().with_context("listening on " + config_.listen_host + ":" + std::to_string(config_.listen_port));
  config_.listen_port = *port;
  MQKIT_RETURN_IF_ERROR(start_fast_listener(any_listen_port));
  auto host = plugin::v1::parse_host_address(config_.address());
  if (!host) return host.status().with_context("broker_ip1");
  context_.store_host = *host;
  MQKIT_RETURN_IF_ERROR(start_replication(any_listen_port));
  // Delayed delivery and transaction checks append records, which carry the store host: only
  // once it is known. A slave runs neither (RocketMQ starts them on masters only): its records
  // come from the master.
  if (!config_.is_slave()) MQKIT_RETURN_IF_ERROR(start_processor_services(extra_services_));
  // Requests change topics (auto-creation): the listener is in place before they are served.
  topics_->on_change([this] { registration_needed_ = true; });
  handler_->open();  // everything a request reads is in place

  registrar_ = std::make_unique<NameServerRegistrar>(config_, transport_, *topics_);
  register_all();
  registered_once_.store(true, std::memory_order_release);
  const auto period = std::chrono::milliseconds(config_.register_name_server_period_ms);
  tasks_.add("register-broker", period, period, [this] { register_all(); });
  tasks_.add("register-after-change", std::chrono::milliseconds(200), std::chrono::milliseconds(200), [this] {
    if (registration_needed_.exchange(false)) register_all();
  });
  const auto persist = std::chrono::milliseconds(config_.flush_consumer_offset_interval_ms);
  if (config_.is_slave()) {
    // RocketMQ's SlaveSynchronize: 3 s after start, then every 10 s.
    tasks_.add("slave-synchronize", std::chrono::seconds(3), std::chrono::seconds(10), [this] { synchronize_from_master(); });
  }
  tasks_.add("persist-offsets", persist, persist, [this] { persist_consumption(offsets_.get(), context_.pops.get()); });
  tasks_.add("sample-stats", std::chrono::seconds(1), std::chrono::seconds(1), [stats = context_.stats] {
    const std::int64_t now = kernel::wall_clock_ms();
    stats->sample(now, BrokerStats::local_day(now));
  });
  tasks_.add("expire-clients", std::chrono::seconds(10), std::chrono::seconds(10), [this] {
    consumers_.expire(kernel::wall_clock_ms(), config_.channel_expired_timeout_ms);
    producers_.expire(kernel::wall_clock_ms(), config_.channel_expired_timeout_ms);
  });
  tasks_.start("BrokerSchedule");
  if (context_.metrics) {
    exporter_ = std::make_unique<metrics::HttpExporter>(
        [this] { return broker_metrics_page(context_, kernel::wall_clock_ms()); });
    MQKIT_ASSIGN_OR_RETURN(metrics_port_, metrics::start_exporter(*exporter_, config_.metrics_exporter,
                                                                  config_.listen_host, "broker"));
  }
  log->info("broker {} ({}) serving on {} in cluster {}", config_.broker_name, config_.broker_id, config_.address(),
            config_.cluster_name);
  return Status::ok();
}

Status BrokerController::start_access_control() {
  if (!config_.acl_enable) return Status::ok();
  if (!access_control_) {
    MQKIT_ASSIGN_OR_RETURN(access_control_, acl::AccessControl::load(config_.acl_file));
  }
  context_.access_control = access_control_;
  handler_->set_access_check([control = access_control_](const plugin::v1::Channel& channel,
                                                         const plugin::v1::RemotingCommand& request) {
    return control->check(request, channel.remote_address());
  });
  tasks_.add("reload-acl-file", acl::kAclFileCheckInterval, acl::kAclFileCheckInterval,
             [control = access_control_] { control->reload_if_changed(); });
  kernel::logger("broker")->info("ACL enabled: every client request is checked against {}",
                                 access_control_->file().string());
  return Status::ok();
}

Status BrokerController::start_fast_listener(bool any_listen_port) {
  // RocketMQ 4.x brokers serve the same requests on listenPort - 2 too: clients with
  // vipChannelEnabled (the default up to 4.3) send there. With any listen port, no client can
  // know where it would be.
  std::uint16_t fast_port = 0;
  if (config_.fast_listen_port > 0) {
    fast_port = static_cast<std::uint16_t>(config_.fast_listen_port);
  } else if (config_.fast_listen_port < 0 && !any_listen_port && config_.listen_port > 2) {
    fast_port = static_cast<std::uint16_t>(config_.listen_port - 2);
  }
  if (fast_port == 0) return Status::ok();
  auto bound = transport_->listen({config_.listen_host, fast_port}, handler_);
  if (!bound) {
    return bound.status().with_context("listening on the fast (VIP) port " + config_.listen_host + ":" +
                                       std::to_string(fast_port) + " (fast_listen_port; 0 turns it off)");
  }
  config_.fast_listen_port = *bound;
  kernel::logger("broker")->info("fast (VIP) port {} serves the same requests", *bound);
  return Status::ok();
}

Status BrokerController::start_replication(bool any_listen_port) {
  if (config_.is_slave()) {
    ha_client_ = std::make_unique<ha::HaClient>(
        store_, dispatch_.get(),
        ha::HaClientOptions{.heartbeat_interval_ms = config_.ha_send_heartbeat_interval_ms,
                            .housekeeping_interval_ms = config_.ha_housekeeping_interval_ms,
                            .max_unit_size = config_.max_message_size + 64 * 1024 * 1024});
    if (!config_.ha_master_address.empty()) ha_client_->set_master_address(config_.ha_master_address);
    ha_client_->start();
    context_.ha_runtime_info = [client = ha_client_.get()] { return client->runtime_info(); };
    return Status::ok();
  }
  replicas_ = std::make_unique<ReplicaAcks>();
  std::uint16_t ha_port = 0;
  if (config_.ha_listen_port > 0) {
    ha_port = static_cast<std::uint16_t>(config_.ha_listen_port);
  } else if (config_.ha_listen_port < 0 && !any_listen_port) {
    ha_port = static_cast<std::uint16_t>(config_.listen_port + 1);  // RocketMQ's listenPort + 1
  }
  ha_master_ = std::make_unique<ha::HaMaster>(
      store_, *replicas_,
      ha::HaMasterOptions{.host = config_.listen_host,
                          .port = ha_port,
                          .heartbeat_interval_ms = config_.ha_send_heartbeat_interval_ms,
                          .housekeeping_interval_ms = config_.ha_housekeeping_interval_ms,
                          .transfer_batch_size = config_.ha_transfer_batch_size});
  MQKIT_ASSIGN_OR_RETURN(const std::uint16_t bound, ha_master_->start());
  config_.ha_listen_port = bound;  // registered as haServerAddr
  context_.replicas = replicas_.get();
  context_.ha_master = ha_master_.get();
  context_.ha_runtime_info = [master = ha_master_.get(), max_gap = config_.ha_max_gap_not_in_sync] {
    return master->runtime_info(max_gap);
  };
  return Status::ok();
}

void BrokerController::register_all() {
  registrar_->register_all();
  // A slave follows the master the name servers name, unless told where it is.
  if (ha_client_ && config_.ha_master_address.empty()) {
    if (auto address = registrar_->master_ha_address(); !address.empty()) ha_client_->set_master_address(address);
  }
}

void BrokerController::synchronize_from_master() {
  const std::string master = registrar_->master_address();
  if (master.empty() || master == config_.address()) return;
  ha::synchronize_from_master(context_, *transport_, master);
}

void BrokerController::notify_group_change(const std::string& group, const std::vector<ClientConnection>& members) {
  if (auto settings = groups_ ? groups_->find(group) : std::nullopt;
      settings && !settings->notify_consumer_ids_changed_enable) {
    return;
  }
  for (const auto& member : members) {
    auto notice = plugin::v1::RemotingCommand::request(protocol::request_code::kNotifyConsumerIdsChanged);
    notice.flag = plugin::v1::RemotingCommand::kOnewayFlag;
    notice.ext_fields.set("consumerGroup", group);
    (void)member.channel->send(std::move(notice));
  }
}

void BrokerController::stop() noexcept {
  if (!started_) return;
  started_ = false;
  // First: a scrape reads the services stopped below.
  if (exporter_) exporter_->stop();
  tasks_.stop();
  if (registrar_) registrar_->unregister_all();
  if (handler_) handler_->close();  // requests from now on are refused; those in flight finish
  if (ha_client_) ha_client_->stop();
  if (ha_master_) ha_master_->stop();
  if (long_polling_) long_polling_->stop();
  stop_processor_services(extra_services_);
  extra_services_.reset();
  transport_->shutdown();
  context_.ha_master = nullptr;  // no request runs any more
  if (dispatch_) dispatch_->stop();
  // A start that stopped at a corrupt offsets or pop document saves nothing over it: what is in
  // memory then is empty, not what the broker had.
  if (consumption_loaded_) persist_consumption(offsets_.get(), context_.pops.get());
  consumption_loaded_ = false;
  store_->shutdown();
  kernel::logger("broker")->info("broker {} stopped", config_.broker_name);
}

}  // namespace mqkit::broker
