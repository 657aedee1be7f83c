#include "transports/remoting/remoting_transport.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <boost/asio/ip/tcp.hpp>

#include <cerrno>
#include <condition_variable>
#include <system_error>

#include "mqkit/plugin/v1/runtime_figures.hpp"
#include "transports/remoting/address.hpp"
#include "transports/remoting/connection.hpp"
#include "transports/remoting/exception_text.hpp"
#include "transports/remoting/listener.hpp"
#include "transports/remoting/once_callback.hpp"
#include "transports/remoting/runtime.hpp"

namespace mqkit::plugins::transports::remoting {

namespace asio = boost::asio;
using v1::Result;
using v1::Status;

namespace {

// How long shutdown() waits for every connection to finish closing.
constexpr std::chrono::seconds kCloseTimeout{5};

Status unavailable_from_errno(const std::string& what, int error) {
  return Status::unavailable(what + ": " + std::system_category().message(error));
}

// A blocking connect bounded by `deadline`, done with poll() on the calling thread: it needs no
// io thread, so connect() is safe even from a transport callback.
Status connect_socket(asio::ip::tcp::socket& socket, const asio::ip::tcp::endpoint& endpoint,
                      std::chrono::steady_clock::time_point deadline, std::chrono::milliseconds timeout) {
  const std::string what = "connecting to " + endpoint_text(endpoint);
  boost::system::error_code error;
  socket.open(endpoint.protocol(), error);
  if (!error) socket.native_non_blocking(true, error);
  if (error) return Status::unavailable(what + ": " + error.message());
  const int fd = socket.native_handle();
  if (::connect(fd, endpoint.data(), static_cast<socklen_t>(endpoint.size())) == 0) return Status::ok();
  if (errno != EINPROGRESS) return unavailable_from_errno(what, errno);
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      return Status::unavailable(what + ": timed out after connect_timeout " + std::to_string(timeout.count()) + "ms");
    }
    pollfd entry{fd, POLLOUT, 0};
    const int ready = ::poll(&entry, 1, static_cast<int>(left.count()));
    if (ready > 0) break;
    if (ready < 0 && errno != EINTR) return unavailable_from_errno(what, errno);
  }
  int result = 0;
  socklen_t size = sizeof(result);
  if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &result, &size) != 0) return unavailable_from_errno(what, errno);
  if (result != 0) return unavailable_from_errno(what, result);
  return Status::ok();
}

}  // namespace

struct RemotingTransport::PoolSlot {
  std::mutex mutex;
  std::condition_variable changed;
  std::shared_ptr<Connection> connection;
  bool connecting = false;
  std::uint64_t attempts = 0;
  Status last_error;
};

Result<std::unique_ptr<RemotingTransport>> RemotingTransport::create(const v1::ConfigValues& config, v1::Host& host) {
  const Options options = Options::from_config(config);
  MQKIT_ASSIGN_OR_RETURN(auto tls, TlsContexts::create(options));
  if (tls->client && options.tls_ca_file.empty()) {
    host.log(v1::LogLevel::kWarn, kPluginName,
             "tls_enable without tls_ca_file: connections are encrypted but the servers' certificates are not "
             "verified");
  }
  return std::make_unique<RemotingTransport>(options, host, std::move(tls));
}

RemotingTransport::RemotingTransport(const Options& options, v1::Host& host, std::shared_ptr<const TlsContexts> tls)
    : runtime_(std::make_shared<Runtime>(options, host, std::move(tls))) {}

RemotingTransport::~RemotingTransport() { shutdown(); }

Result<std::uint16_t> RemotingTransport::listen(const v1::ListenOptions& options,
                                                std::shared_ptr<v1::RequestHandler> handler) noexcept {
  try {
    if (runtime_->stopping()) return Status::unavailable("transport is shut down");
    auto listener = std::make_shared<Listener>(runtime_, std::move(handler));
    MQKIT_ASSIGN_OR_RETURN(const std::uint16_t port, listener->open(options));
    {
      std::lock_guard lock(mutex_);
      listeners_.push_back(listener);
    }
    listener->start();
    return port;
  } catch (...) {
    return Status::internal("listen: " + current_exception_text());
  }
}

Result<std::shared_ptr<v1::Channel>> RemotingTransport::connect(std::string_view address,
                                                                std::shared_ptr<v1::RequestHandler> handler) noexcept {
  try {
    MQKIT_ASSIGN_OR_RETURN(std::shared_ptr<Connection> connection, pooled_connection(address, std::move(handler)));
    return std::shared_ptr<v1::Channel>(std::move(connection));
  } catch (...) {
    return Status::internal("connect to " + std::string(address) + ": " + current_exception_text());
  }
}

void RemotingTransport::invoke(std::string_view address, v1::RemotingCommand request,
                               std::chrono::milliseconds timeout, v1::ResponseCallback done) noexcept {
  std::shared_ptr<OnceCallback> call;
  try {
    auto connection = pooled_connection(address, nullptr);
    if (connection.is_ok()) {
      (*connection)->invoke(std::move(request), timeout, std::move(done));
      return;
    }
    call = std::make_shared<OnceCallback>(std::move(done));
    runtime_->run_on_io([runtime = runtime_, call, status = connection.status()] { call->fire(status, runtime->log()); });
  } catch (...) {
    const Status failed = Status::internal("invoke on " + std::string(address) + ": " + current_exception_text());
    if (call) {
      call->fire(failed, runtime_->log());
    } else if (done) {
      OnceCallback(std::move(done)).fire(failed, runtime_->log());
    }
  }
}

Result<std::shared_ptr<Connection>> RemotingTransport::pooled_connection(
    std::string_view address, std::shared_ptr<v1::RequestHandler> handler) {
  if (runtime_->stopping()) return Status::unavailable("transport is shut down");
  std::shared_ptr<PoolSlot> slot;
  {
    std::lock_guard lock(mutex_);
    auto& entry = pool_[std::string(address)];
    if (!entry) entry = std::make_shared<PoolSlot>();
    slot = entry;
  }
  std::unique_lock lock(slot->mutex);
  while (!slot->connection || !slot->connection->is_open()) {
    if (!slot->connecting) {
      // This caller opens the connection; concurrent callers wait for its outcome.
      slot->connecting = true;
      slot->connection.reset();
      lock.unlock();
      Result<std::shared_ptr<Connection>> made = Status::internal("connect did not run");
      try {
        made = open_connection(address, handler);
      } catch (...) {
        made = Status::internal("connect to " + std::string(address) + ": " + current_exception_text());
      }
      lock.lock();
      slot->connecting = false;
      ++slot->attempts;
      if (made.is_ok()) slot->connection = *made;
      slot->last_error = made.is_ok() ? Status::ok() : made.status();
      slot->changed.notify_all();
      return made;
    }
    const std::uint64_t seen = slot->attempts;
    slot->changed.wait(lock, [&] { return slot->attempts != seen; });
    if (!slot->last_error.is_ok()) return slot->last_error;
  }
  slot->connection->set_handler(std::move(handler));
  return slot->connection;
}

Result<std::shared_ptr<Connection>> RemotingTransport::open_connection(std::string_view address,
                                                                       std::shared_ptr<v1::RequestHandler> handler) {
  MQKIT_ASSIGN_OR_RETURN(const auto endpoints, resolve_address(runtime_->io(), address));
  const auto timeout = runtime_->options().connect_timeout;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  Status last_error = Status::unavailable("no address to connect to for " + std::string(address));
  for (const auto& endpoint : endpoints) {
    asio::ip::tcp::socket socket(runtime_->io());
    last_error = connect_socket(socket, endpoint, deadline, timeout);
    if (!last_error.is_ok()) continue;
    auto connection = std::make_shared<Connection>(runtime_, std::move(socket), std::move(handler),
                                                   Connection::Side::kOpened);
    if (!connection->start()) return Status::unavailable("transport is shut down");
    return connection;
  }
  return last_error;
}

void* RemotingTransport::extension(std::string_view id) noexcept {
  if (id == v1::kRequestQueueId) return static_cast<v1::RequestQueue*>(&runtime_->workers());
  return nullptr;
}

void RemotingTransport::shutdown() noexcept {
  std::lock_guard guard(shutdown_mutex_);
  if (shut_down_) return;
  shut_down_ = true;
  try {
    runtime_->begin_stop();
    std::vector<std::shared_ptr<Listener>> listeners;
    {
      std::lock_guard lock(mutex_);
      listeners.swap(listeners_);
      pool_.clear();
    }
    for (const auto& listener : listeners) listener->close();
    for (const auto& connection : runtime_->connections()) connection->close_because("transport shutting down");
    if (!runtime_->wait_for_no_connections(kCloseTimeout)) {
      runtime_->log().warn("connections still closing after shutdown began; stopping anyway");
    }
    runtime_->stop();
  } catch (...) {
    runtime_->log().error("shutdown: " + current_exception_text());
  }
}

}  // namespace mqkit::plugins::transports::remoting
