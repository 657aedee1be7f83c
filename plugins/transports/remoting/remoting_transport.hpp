// RemotingTransport: the v1::Transport of the RocketMQ 4.x remoting protocol. Servers accept
// connections on listen(); clients share one pooled connection per address. See README.md for
// the configuration and docs/protocol.md for the wire format and the threading model.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mqkit/plugin/v1/config.hpp"
#include "mqkit/plugin/v1/host.hpp"
#include "mqkit/plugin/v1/transport.hpp"
#include "transports/remoting/options.hpp"
#include "transports/remoting/tls.hpp"

namespace mqkit::plugins::transports::remoting {

class Connection;
class Listener;
class Runtime;

class RemotingTransport final : public v1::Transport {
 public:
  static v1::Result<std::unique_ptr<RemotingTransport>> create(const v1::ConfigValues& config, v1::Host& host);

  RemotingTransport(const Options& options, v1::Host& host, std::shared_ptr<const TlsContexts> tls = nullptr);
  ~RemotingTransport() override;

  v1::Result<std::uint16_t> listen(const v1::ListenOptions& options,
                                   std::shared_ptr<v1::RequestHandler> handler) noexcept override;
  v1::Result<std::shared_ptr<v1::Channel>> connect(std::string_view address,
                                                   std::shared_ptr<v1::RequestHandler> handler) noexcept override;
  void invoke(std::string_view address, v1::RemotingCommand request, std::chrono::milliseconds timeout,
              v1::ResponseCallback done) noexcept override;
  void shutdown() noexcept override;
  // v1::kRequestQueueId: the worker pool's queue.
  void* extension(std::string_view id) noexcept override;

 private:
  // One pool entry per address: the live connection, or the attempt under way that concurrent
  // callers wait for instead of opening a second connection.
  struct PoolSlot;

  v1::Result<std::shared_ptr<Connection>> pooled_connection(std::string_view address,
                                                            std::shared_ptr<v1::RequestHandler> handler);
  v1::Result<std::shared_ptr<Connection>> open_connection(std::string_view address,
                                                          std::shared_ptr<v1::RequestHandler> handler);

  const std::shared_ptr<Runtime> runtime_;
  std::mutex mutex_;  // guards listeners_ and pool_
  std::vector<std::shared_ptr<Listener>> listeners_;
  std::unordered_map<std::string, std::shared_ptr<PoolSlot>> pool_;
  std::mutex shutdown_mutex_;
  bool shut_down_ = false;
};

}  // namespace mqkit::plugins::transports::remoting
