#include "transports/remoting/runtime.hpp"

#include <boost/asio/executor_work_guard.hpp>

#include <string>

#include "mqkit/plugin/v1/thread_name.hpp"
#include "transports/remoting/connection.hpp"
#include "transports/remoting/exception_text.hpp"

namespace mqkit::plugins::transports::remoting {

namespace {
// How long stop() waits for the io threads to run out of work before it stops them outright.
constexpr std::chrono::seconds kIoDrainTimeout{5};
}  // namespace

Runtime::Runtime(const Options& options, v1::Host& host, std::shared_ptr<const TlsContexts> tls)
    : options_(options),
      log_(host),
      tls_(tls ? std::move(tls) : std::make_shared<const TlsContexts>()),
      io_(static_cast<int>(options.io_threads)),
      work_(boost::asio::make_work_guard(io_)),
      workers_(options.worker_threads, log_) {
  io_running_ = options_.io_threads;
  io_threads_.reserve(options_.io_threads);
  for (std::size_t i = 0; i < options_.io_threads; ++i) {
    io_threads_.emplace_back([this, i] {
      plugin::v1::name_this_thread("RemotingIO", i);
      run_io();
    });
  }
}

Runtime::~Runtime() { stop(); }

void Runtime::run_io() noexcept {
  for (;;) {
    try {
      io_.run();
      break;
    } catch (...) {
      // A handler should never throw; keep the thread serving the other connections.
      log_.error("io handler threw: " + current_exception_text());
    }
  }
  std::lock_guard lock(io_exit_mutex_);
  --io_running_;
  io_exited_.notify_all();
}

bool Runtime::add(const std::shared_ptr<Connection>& connection) {
  std::lock_guard lock(registry_mutex_);
  if (stopping_) return false;
  connections_.emplace(connection->id(), connection);
  return true;
}

void Runtime::remove(std::uint64_t id) noexcept {
  std::lock_guard lock(registry_mutex_);
  connections_.erase(id);
  if (connections_.empty()) registry_empty_.notify_all();
}

std::vector<std::shared_ptr<Connection>> Runtime::connections() const {
  std::lock_guard lock(registry_mutex_);
  std::vector<std::shared_ptr<Connection>> out;
  out.reserve(connections_.size());
  for (const auto& [id, connection] : connections_) out.push_back(connection);
  return out;
}

bool Runtime::wait_for_no_connections(std::chrono::milliseconds timeout) {
  std::unique_lock lock(registry_mutex_);
  return registry_empty_.wait_for(lock, timeout, [this] { return connections_.empty(); });
}

void Runtime::stop() {
  std::lock_guard stop_lock(stop_mutex_);
  if (stopped_) return;
  stopped_ = true;
  stopping_ = true;
  // Workers first: their last jobs may still post to the io threads.
  workers_.stop();
  work_.reset();
  const bool on_io_thread = io_.get_executor().running_in_this_thread();
  {
    std::unique_lock lock(io_exit_mutex_);
    const std::size_t self = on_io_thread ? 1 : 0;
    if (!io_exited_.wait_for(lock, kIoDrainTimeout, [&] { return io_running_ <= self; })) {
      log_.warn("io threads still busy after shutdown; stopping them");
      io_.stop();
    }
  }
  for (auto& t : io_threads_) {
    if (t.get_id() == std::this_thread::get_id()) {
      t.detach();
    } else {
      t.join();
    }
  }
  io_threads_.clear();
  {
    std::unique_lock lock(io_state_mutex_);
    io_stopped_ = true;
  }
  // Whatever was posted before io_stopped_ was set runs here, so no callback is lost.
  if (!on_io_thread) {
    io_.restart();
    io_.poll();
  }
}

}  // namespace mqkit::plugins::transports::remoting
