// HaClient: the slave side of RocketMQ 4.x replication (HAService.HAClient). Connects to the
// master's HA address (ha_master_address, or what the name server answered the registration
// with), reports this store's max commit offset at once, after every batch of frames it stored
// and at least every ha_send_heartbeat_interval; appends what the master sends with
// append_replicated() (whole records only; a frame that does not continue this log is an error
// logged with both offsets, and the connection is dropped and made again — nothing is written);
// then wakes the dispatch pipeline, which builds consume queues and indexes as for local appends.
// A master silent for ha_housekeeping_interval is dropped; reconnection is tried every
// ha_send_heartbeat_interval, at most every 5 s.
//
// Threads: one io_context run by one thread of its own owns the socket and calls the store;
// set_master_address() may be called from any thread.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <array>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "frame_codec.hpp"
#include "ha_runtime.hpp"
#include "mqkit/kernel/dispatch_pipeline.hpp"
#include "mqkit/plugin/v1/store.hpp"
#include "mqkit/protocol/store_bodies.hpp"

namespace mqkit::broker::ha {

struct HaClientOptions {
  std::int64_t heartbeat_interval_ms = 5000;
  std::int64_t housekeeping_interval_ms = 20'000;
  // Largest record or end-of-file padding accepted (bounds what is buffered).
  std::int64_t max_unit_size = 64 * 1024 * 1024;
};

// The slave's "cannot connect to the master" warnings while the master is down: the first
// failure is logged, then at most one line a minute with the number of failures since.
class ConnectFailureLog {
 public:
  static constexpr std::int64_t kIntervalMs = 60'000;
  // A failure at `now_ms`: how many failures the line to log now covers, or 0 for no line.
  std::int64_t failed(std::int64_t now_ms);
  // Connected: the failures before it (0 when there were none), and the count starts again.
  std::int64_t connected();

 private:
  std::int64_t failures_ = 0;      // since the last successful connection
  std::int64_t unlogged_ = 0;      // failures not yet in a logged line
  std::int64_t last_logged_ms_ = 0;
};

class HaClient {
 public:
  HaClient(std::shared_ptr<plugin::v1::MessageStore> store, kernel::DispatchPipeline* dispatch,
           HaClientOptions options);
  ~HaClient();
  HaClient(const HaClient&) = delete;
  HaClient& operator=(const HaClient&) = delete;

  void start();
  void stop();
  // "host:port" of the master's HA listener; a change drops the current connection.
  void set_master_address(const std::string& address);
  std::string master_address() const;
  // This slave's view of its master (GET_BROKER_HA_STATUS). Any thread.
  plugin::v1::Result<protocol::HaRuntimeInfo> runtime_info();

 private:
  void tick();
  void connect(const std::string& address);
  void connect_failed(const std::string& address, const std::string& why);
  void read();
  void on_read(const boost::system::error_code& error, std::size_t n);
  plugin::v1::Status store_whole_records();
  void report(std::int64_t offset);
  void close(const std::string& why);

  std::shared_ptr<plugin::v1::MessageStore> store_;
  kernel::DispatchPipeline* dispatch_;
  const HaClientOptions options_;
  boost::asio::io_context io_;
  boost::asio::steady_timer tick_timer_;
  mutable std::mutex address_mutex_;
  std::string address_;
  // io thread only:
  std::optional<boost::asio::ip::tcp::socket> socket_;
  std::string connected_to_;
  bool connecting_ = false;
  std::int64_t next_connect_ms_ = 0;
  std::int64_t last_read_ms_ = 0;
  std::int64_t last_write_ms_ = 0;
  std::int64_t reported_offset_ = 0;
  TransferRate rate_;
  ConnectFailureLog connect_failures_;
  FrameDecoder decoder_;
  std::optional<ReplicaBuffer> received_;
  std::array<std::uint8_t, 64 * 1024> read_buffer_{};
  std::array<std::uint8_t, kOffsetReportSize> report_buffer_{};
  bool reporting_ = false;
  std::uint64_t generation_ = 0;  // one per connection; handlers of an older one do nothing
  std::thread thread_;
  bool started_ = false;
};

}  // namespace mqkit::broker::ha
