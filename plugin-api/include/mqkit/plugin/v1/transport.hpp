// Transport: the wire protocol, server side and client side (RocketMQ remoting over TCP for the
// built-in plugin). A server listens and hands every request to a RequestHandler; a client
// connects (connections are pooled per address) and invokes requests with timeouts. Both ends
// of a connection can send requests: the broker notifies consumers over the connection they
// opened.
//
// Threads: the transport runs its own I/O threads and a bounded worker pool. RequestHandler methods
// run on worker threads (or a quick one on an I/O thread) and may block briefly; long waits (long
// polling, sync flush) must answer later through Channel::send instead. Callbacks run on transport threads and must
// not block.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "mqkit/plugin/v1/remoting_command.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::plugin::v1 {

using ResponseCallback = std::function<void(Result<RemotingCommand>)>;

class Channel {
 public:
  virtual ~Channel() = default;
  virtual std::uint64_t id() const noexcept = 0;
  virtual std::string remote_address() const noexcept = 0;  // "ip:port"
  virtual std::string local_address() const noexcept = 0;   // "ip:port"
  virtual bool is_open() const noexcept = 0;

  // Queues a response or a one-way request; never blocks. Unavailable when the channel is
  // closed, ResourceExhausted when its send queue is over its bound.
  virtual Status send(RemotingCommand command) noexcept = 0;
  // Sends a request (a fresh opaque is assigned) and calls `done` exactly once: with the
  // response, or with Timeout / Unavailable.
  virtual void invoke(RemotingCommand request, std::chrono::milliseconds timeout,
                      ResponseCallback done) noexcept = 0;
  virtual void close() noexcept = 0;
};

class RequestHandler {
 public:
  virtual ~RequestHandler() = default;
  // Every request (never a response) that arrives on a channel. One-way requests must not be
  // answered. Requests the handler does not serve are answered REQUEST_CODE_NOT_SUPPORTED.
  virtual void on_request(const std::shared_ptr<Channel>& channel,
                          RemotingCommand request) noexcept = 0;
  virtual void on_channel_closed(const std::shared_ptr<Channel>& /*channel*/) noexcept {}
};

struct ListenOptions {
  std::string host = "0.0.0.0";
  std::uint16_t port = 0;  // 0 = ephemeral
};

class Transport {
 public:
  virtual ~Transport() = default;

  // Starts serving; returns the bound port. May be called more than once (several ports).
  virtual Result<std::uint16_t> listen(const ListenOptions& options,
                                       std::shared_ptr<RequestHandler> handler) noexcept = 0;
  // The pooled connection to `address` ("host:port"), opened if needed. Requests the remote
  // side sends over it go to `handler` (may be nullptr: such requests are refused).
  virtual Result<std::shared_ptr<Channel>> connect(std::string_view address,
                                                   std::shared_ptr<RequestHandler> handler) noexcept = 0;
  // connect() + invoke in one call.
  virtual void invoke(std::string_view address, RemotingCommand request,
                      std::chrono::milliseconds timeout, ResponseCallback done) noexcept = 0;
  // Stops listening, closes every connection, fails pending invocations, joins threads.
  virtual void shutdown() noexcept = 0;

  virtual void* extension(std::string_view /*id*/) noexcept { return nullptr; }
};

}  // namespace mqkit::plugin::v1
