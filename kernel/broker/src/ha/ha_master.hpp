// HaMaster: the master side of RocketMQ 4.x replication (HAService's accept service and
// HAConnection). Accepts slaves on the HA port; per slave, reads its 8-byte offset reports
// (acknowledgements, kept in ReplicaAcks) and streams the commit log from the offset of its first
// report as frames of at most ha_transfer_batch_size bytes, read through the store's
// read_for_dispatch() (committed bytes only), with an empty frame when nothing was written for
// ha_send_heartbeat_interval. A slave silent for ha_housekeeping_interval is dropped.
//
// Threads: one io_context run by one thread of its own owns the acceptor and every connection;
// the store is read on that thread (reads never wait for appends). notify_appended() may be
// called from any thread. ReplicaAcks is also read by the send path.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "mqkit/broker/ha/replica_acks.hpp"
#include "mqkit/plugin/v1/store.hpp"
#include "mqkit/protocol/store_bodies.hpp"

namespace mqkit::broker::ha {

struct HaMasterOptions {
  std::string host = "0.0.0.0";
  std::uint16_t port = 0;  // 0 = any free port
  std::int64_t heartbeat_interval_ms = 5000;
  std::int64_t housekeeping_interval_ms = 20'000;
  std::int64_t transfer_batch_size = 32 * 1024;
};

class HaMaster {
 public:
  HaMaster(std::shared_ptr<plugin::v1::MessageStore> store, ReplicaAcks& acks, HaMasterOptions options);
  ~HaMaster();
  HaMaster(const HaMaster&) = delete;
  HaMaster& operator=(const HaMaster&) = delete;

  // Binds and starts accepting; the bound port.
  plugin::v1::Result<std::uint16_t> start();
  // Closes every connection and joins the thread; waiting sends get FLUSH_SLAVE_TIMEOUT.
  void stop();
  // New bytes were appended: wakes connections waiting for data (cheap when none waits).
  void notify_appended();
  // The connected slaves (GET_BROKER_HA_STATUS); one is in sync when its acknowledged offset is
  // less than `max_gap_not_in_sync` behind this master's log end. Any thread.
  plugin::v1::Result<protocol::HaRuntimeInfo> runtime_info(std::int64_t max_gap_not_in_sync);

  class Connection;

 private:
  friend class Connection;
  void accept_next();
  void tick();
  void remove(const Connection* connection);

  std::shared_ptr<plugin::v1::MessageStore> store_;
  ReplicaAcks& acks_;
  const HaMasterOptions options_;
  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer tick_timer_;
  std::vector<std::shared_ptr<Connection>> connections_;  // io thread only
  std::uint64_t next_id_ = 1;                              // io thread only
  std::atomic<bool> idle_{false};  // some connection waits for data
  std::thread thread_;
  bool started_ = false;
};

}  // namespace mqkit::broker::ha
