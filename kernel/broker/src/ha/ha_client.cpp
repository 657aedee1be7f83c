#include "ha_client.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <utility>

#include "mqkit/broker/ha/replica_acks.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/plugin/v1/thread_name.hpp"

namespace mqkit::broker::ha {

namespace asio = boost::asio;
using asio::ip::tcp;
using plugin::v1::Status;
using plugin::v1::Result;

namespace {
constexpr auto steady_ms = &ReplicaAcks::steady_ms;
constexpr std::int64_t kMaxReconnectDelayMs = 5000;
constexpr std::chrono::milliseconds kTick{50};
}  // namespace

std::int64_t ConnectFailureLog::failed(std::int64_t now_ms) {
  ++failures_;
  ++unlogged_;
  if (failures_ > 1 && now_ms - last_logged_ms_ < kIntervalMs) return 0;
  last_logged_ms_ = now_ms;
  return std::exchange(unlogged_, 0);
}

std::int64_t ConnectFailureLog::connected() {
  unlogged_ = 0;
  return std::exchange(failures_, 0);
}

HaClient::HaClient(std::shared_ptr<plugin::v1::MessageStore> store, kernel::DispatchPipeline* dispatch,
                   HaClientOptions options)
    : store_(std::move(store)),
      dispatch_(dispatch),
      options_(options),
      tick_timer_(io_),
      decoder_(static_cast<std::size_t>(options.max_unit_size)) {}

HaClient::~HaClient() { stop(); }

void HaClient::start() {
  if (started_) return;
  started_ = true;
  tick();
  thread_ = std::thread([this] {
    plugin::v1::name_this_thread("HAClient");
    io_.run();
  });
}

void HaClient::stop() {
  if (!started_) return;
  started_ = false;
  asio::post(io_, [this] {
    tick_timer_.cancel();
    close("the slave is stopping");
    io_.stop();
  });
  if (thread_.joinable()) thread_.join();
}

void HaClient::set_master_address(const std::string& address) {
  std::lock_guard lock(address_mutex_);
  if (address == address_) return;
  kernel::logger("ha")->info("master HA address: {} (was {})", address, address_.empty() ? "unknown" : address_);
  address_ = address;
}

std::string HaClient::master_address() const {
  std::lock_guard lock(address_mutex_);
  return address_;
}

void HaClient::tick() {
  const std::int64_t now = steady_ms();
  const std::string address = master_address();
  if (socket_ && !connecting_) {
    if (address != connected_to_) {
      close("the master's address changed to " + address);
    } else if (now - last_read_ms_ > options_.housekeeping_interval_ms) {
      close("the master was silent for " + std::to_string(now - last_read_ms_) + " ms (ha_housekeeping_interval)");
    } else if (now - last_write_ms_ >= options_.heartbeat_interval_ms) {
      report(reported_offset_);
    }
  }
  if (!socket_ && !address.empty() && now >= next_connect_ms_) connect(address);
  tick_timer_.expires_after(kTick);
  tick_timer_.async_wait([this](const boost::system::error_code& error) {
    if (!error) tick();
  });
}

void HaClient::connect(const std::string& address) {
  next_connect_ms_ = steady_ms() + std::min(options_.heartbeat_interval_ms, kMaxReconnectDelayMs);
  const auto colon = address.rfind(':');
  boost::system::error_code resolve_error;
  tcp::resolver resolver(io_);
  const auto endpoints = resolver.resolve(address.substr(0, colon), address.substr(colon + 1), resolve_error);
  if (resolve_error || colon == std::string::npos) {
    connect_failed(address, "cannot resolve it: " + resolve_error.message());
    return;
  }
  socket_.emplace(io_);
  connecting_ = true;
  connected_to_ = address;
  asio::async_connect(*socket_, endpoints, [this, address, generation = ++generation_](
                                               const boost::system::error_code& error, const tcp::endpoint&) {
    if (generation != generation_) return;  // a connection closed since
    connecting_ = false;
    if (error) {
      connect_failed(address, error.message());
      socket_.reset();
      return;
    }
    if (const std::int64_t failures = connect_failures_.connected(); failures > 0) {
      kernel::logger("ha")->info("reached the master at {} again after {} failed attempt(s)", address, failures);
    }
    boost::system::error_code ignored;
    socket_->set_option(tcp::no_delay(true), ignored);
    const std::int64_t offset = store_->stats().commit_log_max_offset;
    received_.emplace(offset, options_.max_unit_size);
    decoder_.reset();
    last_read_ms_ = steady_ms();
    kernel::logger("ha")->info("connected to the master at {}; this log ends at {}", address, offset);
    report(offset);
    read();
  });
}

void HaClient::connect_failed(const std::string& address, const std::string& why) {
  const std::int64_t failures = connect_failures_.failed(steady_ms());
  if (failures == 1) {
    kernel::logger("ha")->warn("cannot connect to the master at {}: {} (retrying; further failures are logged once a minute)",
                               address, why);
  } else if (failures > 1) {
    kernel::logger("ha")->warn("cannot connect to the master at {}: {} ({} failures in the last minute)", address, why,
                               failures);
  }
}

void HaClient::read() {
  socket_->async_read_some(asio::buffer(read_buffer_), [this, generation = generation_](
                                                           const boost::system::error_code& error, std::size_t n) {
    if (generation == generation_) on_read(error, n);
  });
}

void HaClient::on_read(const boost::system::error_code& error, std::size_t n) {
  if (error) return close(error == asio::error::eof ? "closed by the master" : error.message());
  last_read_ms_ = steady_ms();
  rate_.add(static_cast<std::int64_t>(n), last_read_ms_);
  Status status = decoder_.feed(std::span<const std::uint8_t>(read_buffer_.data(), n),
                                [this](FrameHeader header, std::span<const std::uint8_t> body) {
                                  return received_->add(header, body);
                                });
  if (status) status = store_whole_records();
  if (!status) {
    kernel::logger("ha")->error("replication from {} stopped: {}; nothing after offset {} was written, reconnecting",
                                connected_to_, status.to_string(), store_->stats().commit_log_max_offset);
    return close("replication error");
  }
  const std::int64_t stored = store_->stats().commit_log_max_offset;
  if (stored > reported_offset_) report(stored);
  read();
}

Result<protocol::HaRuntimeInfo> HaClient::runtime_info() {
  struct Seen {
    std::int64_t last_read_ms;
    std::int64_t last_write_ms;
    std::int64_t per_second;
  };
  MQKIT_ASSIGN_OR_RETURN(const Seen seen, ask_io_thread(io_, [this] {
                           return Seen{last_read_ms_, last_write_ms_, rate_.per_second(steady_ms())};
                         }));
  protocol::HaRuntimeInfo info;
  protocol::HaClientRuntimeInfo& client = info.ha_client_runtime_info;
  client.master_addr = master_address();
  client.max_offset = store_->stats().commit_log_max_offset;
  client.last_read_timestamp = wall_time_of(seen.last_read_ms);
  client.last_write_timestamp = wall_time_of(seen.last_write_ms);
  client.transferred_byte_in_second = seen.per_second;
  return info;
}

Status HaClient::store_whole_records() {
  MQKIT_ASSIGN_OR_RETURN(const auto units, received_->whole_units());
  if (units.empty()) return Status::ok();
  MQKIT_RETURN_IF_ERROR(store_->append_replicated(received_->start_offset(), units));
  received_->consumed(units.size());
  if (dispatch_ != nullptr) dispatch_->notify_appended();
  return Status::ok();
}

void HaClient::report(std::int64_t offset) {
  reported_offset_ = offset;
  last_write_ms_ = steady_ms();
  // A report supersedes the one before it: while one is being written the next waits for the
  // next read or heartbeat (8 bytes on an idle socket are written at once in practice).
  if (reporting_) return;
  reporting_ = true;
  report_buffer_ = encode_offset_report(offset);
  asio::async_write(*socket_, asio::buffer(report_buffer_), [this, generation = generation_](
                                                                const boost::system::error_code& error, std::size_t) {
    if (generation != generation_) return;
    reporting_ = false;
    if (error) close("reporting the offset: " + error.message());
  });
}

void HaClient::close(const std::string& why) {
  if (!socket_) return;
  kernel::logger("ha")->info("disconnected from the master at {}: {}", connected_to_, why);
  boost::system::error_code ignored;
  socket_->shutdown(tcp::socket::shutdown_both, ignored);
  socket_->close(ignored);
  socket_.reset();
  ++generation_;  // handlers of the closed socket's operations find a newer generation
  connecting_ = false;
  reporting_ = false;
  received_.reset();
  decoder_.reset();
}

}  // namespace mqkit::broker::ha
