// How the broker serves remoting requests: each RequestProcessor handles a few request codes;
// BrokerRequestHandler routes every request from the transport to the processor of its code.
// A processor answers through its Responder, at once or later from another thread (long
// polling, sync flush). One-way requests are never answered.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "mqkit/metrics/rpc_latency.hpp"
#include "mqkit/plugin/v1/transport.hpp"

namespace mqkit::broker {

using plugin::v1::Channel;
using plugin::v1::RemotingCommand;

// How long a client has to answer a request the broker sends it (RocketMQ's callClient): a
// forwarded GET_CONSUMER_RUNNING_INFO, a pushed reply.
inline constexpr std::chrono::milliseconds kCallClientTimeout{10000};

class Responder {
 public:
  // With `rpc`, the answer's latency since now is recorded there (rocketmq_rpc_latency).
  Responder(std::shared_ptr<Channel> channel, const RemotingCommand& request, metrics::RpcLatency* rpc = nullptr)
      : channel_(std::move(channel)), opaque_(request.opaque), oneway_(request.is_oneway()),
        serialize_type_(request.serialize_type), request_code_(request.code), timer_(rpc) {}

  // Sends `response` (its opaque, flag and serialization are set here). Dropped for one-way.
  void respond(RemotingCommand response) const;
  // Sends an error response with `code` and `remark`.
  void fail(std::int32_t code, std::string remark) const;
  // This responder for a request held by long polling (its latency is labelled so).
  Responder held() const {
    Responder copy = *this;
    copy.long_polling_ = true;
    return copy;
  }

  const std::shared_ptr<Channel>& channel() const noexcept { return channel_; }

 private:
  std::shared_ptr<Channel> channel_;
  std::int32_t opaque_;
  bool oneway_;
  plugin::v1::SerializeType serialize_type_;
  std::int32_t request_code_;
  metrics::RpcTimer timer_;
  bool long_polling_ = false;
};

class RequestProcessor {
 public:
  virtual ~RequestProcessor() = default;
  virtual std::vector<std::int32_t> codes() const = 0;
  // Must answer exactly once through `responder` (or not at all for one-way requests). May
  // throw: the handler turns an exception into SYSTEM_ERROR.
  virtual void process(RemotingCommand request, Responder responder) = 0;
};

class BrokerRequestHandler final : public plugin::v1::RequestHandler {
 public:
  using ClosedListener = std::function<void(std::uint64_t channel_id)>;
  // Decides whether a request may reach its processor (the ACL). A refusal is answered with
  // SYSTEM_ERROR and the Status message as remark, as RocketMQ answers a request its server
  // RPC hook throws on.
  using AccessCheck = std::function<plugin::v1::Status(const Channel& channel, const RemotingCommand& request)>;

  void add(std::shared_ptr<RequestProcessor> processor);
  // Records every request's latency in `rpc` from now on (metrics on); set before listening.
  void record_latency_in(metrics::RpcLatency* rpc) noexcept { rpc_ = rpc; }
  void on_channel_closed(ClosedListener listener) { closed_listeners_.push_back(std::move(listener)); }
  // Before the transport delivers requests (not synchronized with on_request).
  void set_access_check(AccessCheck check) { access_check_ = std::move(check); }

  // Until open(), every request is answered SERVICE_NOT_AVAILABLE ("the broker is starting"),
  // which producers retry on another broker. The broker listens before it knows all a request
  // reads (its address when the port is ephemeral, replication, delayed delivery); open()
  // publishes that state to the transport's threads once it is complete. After close(), the same
  // answer says the broker is stopping: its services stop while the transport still delivers.
  void open() noexcept { state_.store(State::kOpen, std::memory_order_release); }
  void close() noexcept { state_.store(State::kStopping, std::memory_order_release); }

  void on_request(const std::shared_ptr<Channel>& channel, RemotingCommand request) noexcept override;
  void on_channel_closed(const std::shared_ptr<Channel>& channel) noexcept override;

 private:
  enum class State : std::uint8_t { kStarting, kOpen, kStopping };
  std::atomic<State> state_{State::kStarting};
  std::map<std::int32_t, std::shared_ptr<RequestProcessor>> processors_;
  std::vector<ClosedListener> closed_listeners_;
  AccessCheck access_check_;
  metrics::RpcLatency* rpc_ = nullptr;
};

}  // namespace mqkit::broker
