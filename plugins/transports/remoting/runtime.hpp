// Runtime: what every listener and connection of one transport shares — the io_context and its
// threads, the worker pool, the options, the log, the id counters and the registry of open
// connections. Owned through shared_ptr by the transport and by each connection, so it outlives
// every handler that still refers to it.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "transports/remoting/log.hpp"
#include "transports/remoting/options.hpp"
#include "transports/remoting/tls.hpp"
#include "transports/remoting/worker_pool.hpp"

namespace mqkit::plugins::transports::remoting {

class Connection;

class Runtime {
 public:
  Runtime(const Options& options, v1::Host& host, std::shared_ptr<const TlsContexts> tls = nullptr);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  const Options& options() const noexcept { return options_; }
  // The TLS contexts for accepted (server) and opened (client) connections; null members: plain.
  const TlsContexts& tls() const noexcept { return *tls_; }
  const Log& log() const noexcept { return log_; }
  boost::asio::io_context& io() noexcept { return io_; }
  WorkerPool& workers() noexcept { return workers_; }

  // Opaques are unique per transport, not just per connection, which makes logs easier to read.
  std::int32_t next_opaque() noexcept {
    return static_cast<std::int32_t>(next_opaque_.fetch_add(1, std::memory_order_relaxed));
  }
  std::uint64_t next_connection_id() noexcept { return next_connection_id_.fetch_add(1, std::memory_order_relaxed); }

  // Runs `fn` through `executor` (the io_context or a strand) while the io threads run, and on
  // the calling thread once they are gone: work handed to the transport is never dropped.
  template <typename Executor, typename Fn>
  void run_on(const Executor& executor, Fn&& fn) {
    {
      std::shared_lock lock(io_state_mutex_);
      if (!io_stopped_) {
        boost::asio::post(executor, std::forward<Fn>(fn));
        return;
      }
    }
    fn();
  }
  template <typename Fn>
  void run_on_io(Fn&& fn) {
    run_on(io_.get_executor(), std::forward<Fn>(fn));
  }

  // The registry of open connections (both sides). add() refuses once stopping has begun.
  bool add(const std::shared_ptr<Connection>& connection);
  void remove(std::uint64_t id) noexcept;
  std::vector<std::shared_ptr<Connection>> connections() const;
  // True when every registered connection has gone before `timeout`.
  bool wait_for_no_connections(std::chrono::milliseconds timeout);

  bool stopping() const noexcept { return stopping_.load(); }
  // Refuses new connections from now on.
  void begin_stop() noexcept { stopping_ = true; }
  // Drains and joins the workers, then lets the io threads finish and joins them. Idempotent.
  void stop();

 private:
  void run_io() noexcept;

  const Options options_;
  const Log log_;
  const std::shared_ptr<const TlsContexts> tls_;
  boost::asio::io_context io_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
  std::vector<std::thread> io_threads_;
  WorkerPool workers_;

  std::atomic<std::uint32_t> next_opaque_{1};
  std::atomic<std::uint64_t> next_connection_id_{1};
  std::atomic<bool> stopping_{false};

  mutable std::mutex registry_mutex_;
  std::condition_variable registry_empty_;
  std::unordered_map<std::uint64_t, std::shared_ptr<Connection>> connections_;

  std::mutex stop_mutex_;
  bool stopped_ = false;
  std::mutex io_exit_mutex_;
  std::condition_variable io_exited_;
  std::size_t io_running_ = 0;

  std::shared_mutex io_state_mutex_;
  bool io_stopped_ = false;
};

}  // namespace mqkit::plugins::transports::remoting
