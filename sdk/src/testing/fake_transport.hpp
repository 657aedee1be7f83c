// Test doubles for the SDK: a Transport that answers in-process, and a FakeCluster playing one
// name server and any number of brokers (routes, sends, heartbeats) on top of it. No sockets,
// no threads: responses are computed on the calling thread, and callbacks run there too unless
// responses are held (then they run when the test releases them).
//
// Thread-safe, so tests may send from several threads.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "mqkit/client/types.hpp"
#include "mqkit/plugin/v1/transport.hpp"
#include "mqkit/protocol/bodies.hpp"

namespace mqkit::client::testing {

using plugin::v1::RemotingCommand;

class FakeTransport final : public plugin::v1::Transport,
                            public std::enable_shared_from_this<FakeTransport> {
 public:
  // The answer to a request sent to `address` (a failed Result is a transport failure).
  using Responder = std::function<Result<RemotingCommand>(const std::string& address, const RemotingCommand& request)>;

  explicit FakeTransport(Responder responder) : responder_(std::move(responder)) {}

  struct Call {
    std::string address;
    RemotingCommand request;  // body_slices flattened into body
  };
  std::vector<Call> calls() const;
  std::vector<Call> calls_with_code(std::int32_t code) const;
  // What the last HEART_BEAT said of its one consumer; an error when there was none, or it named
  // no consumer or several.
  Result<protocol::ConsumerData> last_consumer_heartbeat() const;

  // connect() to `address` fails (Unavailable) while set.
  void set_unreachable(const std::string& address, bool unreachable);
  // While held, message sends wait; release_held() answers the oldest `count` of them. Other
  // requests (heartbeats, route queries) are answered as ever, so the client's background work
  // cannot take a held place a test counts on.
  void hold_responses(bool hold);
  std::size_t held_count() const;
  void release_held(std::size_t count = static_cast<std::size_t>(-1));
  // Delivers a broker→client request to the handler the client connected with.
  void deliver_request(const std::string& address, RemotingCommand request);
  // What the client answered to delivered requests.
  std::vector<RemotingCommand> client_responses() const;

  Result<std::uint16_t> listen(const plugin::v1::ListenOptions& options,
                               std::shared_ptr<plugin::v1::RequestHandler> handler) noexcept override;
  Result<std::shared_ptr<plugin::v1::Channel>> connect(std::string_view address,
                                                       std::shared_ptr<plugin::v1::RequestHandler> handler) noexcept override;
  void invoke(std::string_view address, RemotingCommand request, std::chrono::milliseconds timeout,
              plugin::v1::ResponseCallback done) noexcept override;
  void shutdown() noexcept override;

  // Used by the fake channels.
  void channel_invoke(const std::string& address, RemotingCommand request, plugin::v1::ResponseCallback done);
  plugin::v1::Status channel_send(const std::string& address, RemotingCommand command);

 private:
  struct Held {
    std::string address;
    RemotingCommand request;
    plugin::v1::ResponseCallback done;
  };
  Result<RemotingCommand> answer(const std::string& address, RemotingCommand& request);

  Responder responder_;
  mutable std::mutex mutex_;
  std::vector<Call> calls_;
  std::set<std::string> unreachable_;
  bool hold_ = false;
  std::deque<Held> held_;
  std::map<std::string, std::shared_ptr<plugin::v1::RequestHandler>> handlers_;
  std::vector<RemotingCommand> client_responses_;
  std::int32_t next_opaque_ = 1;
};

// One name server and brokers; answers GET_ROUTEINFO_BY_TOPIC from the topics added, sends by
// storing them (or failing as told), everything else with SUCCESS.
class FakeCluster {
 public:
  static constexpr const char* kNamesrv = "10.0.0.100:9876";

  FakeCluster();

  void add_broker(const std::string& name, const std::string& address);
  // A slave of broker `name` (routed with its id; its requests go to the same handlers).
  void add_slave(const std::string& name, std::int64_t broker_id, const std::string& address);
  void add_topic(const std::string& topic, const std::string& broker, int queues, int perm = 6);
  // The topic's queues on `broker` leave its route.
  void remove_topic(const std::string& topic, const std::string& broker);
  // Sends to the broker are answered with `code` (0 = store them).
  void set_send_code(const std::string& broker, std::int32_t code);
  // The broker's address refuses connections.
  void set_unreachable(const std::string& broker, bool unreachable);

  // Requests of `code` sent to a broker are answered by `handler` instead (called with the
  // cluster's lock held: it must not call back into the cluster).
  using BrokerHandler = std::function<RemotingCommand(const std::string& broker, const RemotingCommand& request)>;
  void set_broker_handler(std::int32_t code, BrokerHandler handler);

  struct StoredSend {
    std::string broker;
    std::string topic;
    std::int32_t queue_id = 0;
    RemotingCommand request;
  };
  // Sends the brokers stored, in order.
  std::vector<StoredSend> stored() const;
  // Send requests of any outcome, by broker name.
  std::vector<std::string> send_attempts() const;
  const std::shared_ptr<FakeTransport>& transport() const { return transport_; }
  std::string address_of(const std::string& broker) const;

 private:
  Result<RemotingCommand> respond(const std::string& address, const RemotingCommand& request);
  RemotingCommand route_response(const RemotingCommand& request);
  RemotingCommand send_response(const std::string& broker, const RemotingCommand& request);

  struct Broker {
    std::string address;
    std::map<std::int64_t, std::string> slaves;
    std::int32_t send_code = 0;
    std::map<std::pair<std::string, std::int32_t>, std::int64_t> next_offset;
  };
  struct TopicQueues {
    std::string broker;
    int queues = 0;
    int perm = 6;
  };
  mutable std::mutex mutex_;
  std::map<std::string, Broker> brokers_;
  std::multimap<std::string, TopicQueues> topics_;
  std::vector<StoredSend> stored_;
  std::map<std::int32_t, BrokerHandler> broker_handlers_;
  std::vector<std::string> send_attempts_;
  std::shared_ptr<FakeTransport> transport_;
};

}  // namespace mqkit::client::testing
