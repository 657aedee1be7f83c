// NameServerProcessor: the remoting front-end of the name server. Turns RocketMQ requests into
// calls on RouteInfoManager and KvConfigManager and builds the responses (rocketmq-facts §1.9,
// §1.12). handle() is a pure request → response function (testable without a network);
// on_request() adapts it to the transport.
#pragma once

#include <functional>
#include <memory>
#include <optional>

#include "mqkit/metrics/rpc_latency.hpp"
#include "mqkit/namesrv/kv_config_manager.hpp"
#include "mqkit/namesrv/namesrv_settings.hpp"
#include "mqkit/namesrv/route_info_manager.hpp"
#include "mqkit/plugin/v1/transport.hpp"

namespace mqkit::namesrv {

using plugin::v1::RemotingCommand;

class NameServerProcessor final : public plugin::v1::RequestHandler {
 public:
  using Clock = std::function<std::int64_t()>;  // milliseconds

  NameServerProcessor(RouteInfoManager& routes, KvConfigManager& kv, std::shared_ptr<NamesrvSettings> settings,
                      Clock clock);

  // The response to `request` (for one-way requests the caller drops it).
  RemotingCommand handle(const RemotingCommand& request, std::uint64_t channel_id);

  void on_request(const std::shared_ptr<plugin::v1::Channel>& channel, RemotingCommand request) noexcept override;
  // Records every request's latency in `rpc` from now on (metrics on); set before listening.
  void record_latency_in(metrics::RpcLatency* rpc) noexcept { rpc_ = rpc; }
  void on_channel_closed(const std::shared_ptr<plugin::v1::Channel>& channel) noexcept override;

 private:
  RemotingCommand register_broker(const RemotingCommand& request, std::uint64_t channel_id);
  RemotingCommand unregister_broker(const RemotingCommand& request);
  RemotingCommand route_by_topic(const RemotingCommand& request);
  RemotingCommand query_data_version(const RemotingCommand& request);
  RemotingCommand kv_request(const RemotingCommand& request);
  RemotingCommand update_config(const RemotingCommand& request, std::uint64_t channel_id);

  RouteInfoManager& routes_;
  KvConfigManager& kv_;
  std::shared_ptr<NamesrvSettings> settings_;
  Clock clock_;
  metrics::RpcLatency* rpc_ = nullptr;
};

}  // namespace mqkit::namesrv
