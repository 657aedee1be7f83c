#include "ha_master.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <array>
#include <chrono>

#include "frame_codec.hpp"
#include "ha_runtime.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/plugin/v1/thread_name.hpp"

namespace mqkit::broker::ha {

namespace asio = boost::asio;
using asio::ip::tcp;
using plugin::v1::Result;
using plugin::v1::Status;

namespace {

// How long a caught-up connection sleeps before looking again when no append wakes it.
constexpr std::int64_t kIdleWaitMs = 100;
// The master's clock for sync waits' deadlines, acknowledgement expiry and housekeeping.
constexpr std::chrono::milliseconds kTick{20};

constexpr auto steady_ms = &ReplicaAcks::steady_ms;

// Where an empty slave's transfer starts: like RocketMQ's HAConnection, at the beginning of this
// master's last commit log file (its max offset rounded down to the file size). A store that does
// not say its file size (through the "mqkit.store.commit-log-file-size" extension, a
// `const std::int64_t*`; the memory store has no files) sends everything it still has.
std::int64_t empty_slave_start(plugin::v1::MessageStore& store, const plugin::v1::StoreStats& stats) {
  const auto* file_size = static_cast<const std::int64_t*>(store.extension("mqkit.store.commit-log-file-size"));
  if (file_size == nullptr || *file_size <= 0) return stats.commit_log_min_offset;
  const std::int64_t last_file = stats.commit_log_max_offset - stats.commit_log_max_offset % *file_size;
  return std::max(last_file, stats.commit_log_min_offset);
}
}  // namespace

// One slave. Everything runs on the master's io thread.
class HaMaster::Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(HaMaster& master, tcp::socket socket, std::uint64_t id)
      : master_(master), socket_(std::move(socket)), wait_timer_(master.io_), id_(id) {
    boost::system::error_code error;
    const auto peer = socket_.remote_endpoint(error);
    peer_ = error ? "?" : peer.address().to_string() + ":" + std::to_string(peer.port());
    socket_.set_option(tcp::no_delay(true), error);
    last_read_ms_ = last_write_ms_ = steady_ms();
  }

  std::uint64_t id() const noexcept { return id_; }
  const std::string& peer() const noexcept { return peer_; }
  std::int64_t last_read_ms() const noexcept { return last_read_ms_; }
  // Where the next frame starts (RocketMQ's transferFromWhere); -1 before the slave's first report.
  std::int64_t next_transfer() const noexcept { return next_transfer_; }
  std::int64_t transferred_per_second(std::int64_t now_ms) noexcept { return rate_.per_second(now_ms); }

  void start() {
    master_.acks_.connected(id_);
    read();
  }

  // Wakes the connection if it waits for new bytes.
  void wake() {
    if (waiting_) wait_timer_.cancel();
  }

  void close(const std::string& why) {
    if (closed_) return;
    closed_ = true;
    kernel::logger("ha")->info("slave {} disconnected: {}", peer_, why);
    boost::system::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
    wait_timer_.cancel();
    master_.acks_.disconnected(id_);
    master_.remove(this);
  }

 private:
  void read() {
    socket_.async_read_some(asio::buffer(read_buffer_),
                            [self = shared_from_this()](const boost::system::error_code& error, std::size_t n) {
                              self->on_read(error, n);
                            });
  }

  void on_read(const boost::system::error_code& error, std::size_t n) {
    if (closed_) return;
    if (error) return close(error == asio::error::eof ? "closed by the slave" : error.message());
    last_read_ms_ = steady_ms();
    if (const auto offset = reports_.feed(std::span<const std::uint8_t>(read_buffer_.data(), n))) {
      if (!on_report(*offset)) return;
    }
    read();
  }

  bool on_report(std::int64_t offset) {
    if (offset < 0) {
      close("it reported offset " + std::to_string(offset) + ": not a commit log offset");
      return false;
    }
    const auto stats = master_.store_->stats();
    if (next_transfer_ < 0) {
      // The first report says where the slave's log ends: the transfer starts there, or for an
      // empty slave at the start of this master's last commit log file.
      if (offset > stats.commit_log_max_offset) {
        close("its log ends at " + std::to_string(offset) + ", after this master's " +
              std::to_string(stats.commit_log_max_offset) + ": it belongs to another master");
        return false;
      }
      next_transfer_ = offset == 0 ? empty_slave_start(*master_.store_, stats) : offset;
      kernel::logger("ha")->info("slave {} connected, its log ends at {}; transfer starts at {}", peer_, offset,
                                 next_transfer_);
      master_.acks_.acked(id_, offset);
      pump();
      return true;
    }
    if (offset > stats.commit_log_max_offset) {
      close("it acknowledged offset " + std::to_string(offset) + " beyond this master's log end " +
            std::to_string(stats.commit_log_max_offset));
      return false;
    }
    master_.acks_.acked(id_, offset);
    return true;
  }

  // Sends the next frame, or waits for bytes to send.
  void pump() {
    if (closed_ || writing_ || next_transfer_ < 0) return;
    waiting_ = false;
    const std::int64_t batch = master_.options_.transfer_batch_size;
    if (slice_.bytes.size() <= slice_sent_ && blank_left_ == 0) {
      slice_ = {};
      slice_sent_ = 0;
      auto chunk = master_.store_->read_for_dispatch(next_transfer_, batch);
      if (!chunk) return close("reading the commit log at " + std::to_string(next_transfer_) + ": " +
                               chunk.status().to_string());
      if (chunk->start_offset > next_transfer_) {
        // The store skipped the padding that ends a commit log file: the slave needs it too, so
        // its files end where this master's do. Below the log's start is a slave too far behind.
        const auto min_offset = master_.store_->stats().commit_log_min_offset;
        if (next_transfer_ < min_offset) {
          return close("it needs offset " + std::to_string(next_transfer_) + " but this master's log starts at " +
                       std::to_string(min_offset) + " (rebuild the slave from an empty store)");
        }
        blank_left_ = chunk->start_offset - next_transfer_;
        blank_header_sent_ = false;
      } else if (!chunk->bytes.bytes.empty()) {
        slice_ = std::move(chunk->bytes);
      }
    }
    std::span<const std::uint8_t> body;
    if (slice_sent_ < slice_.bytes.size()) {
      const auto size = std::min<std::size_t>(slice_.bytes.size() - slice_sent_, static_cast<std::size_t>(batch));
      body = slice_.bytes.subspan(slice_sent_, size);
      slice_sent_ += size;
    } else if (blank_left_ > 0) {
      const auto size = static_cast<std::size_t>(std::min(blank_left_, batch));
      blank_.assign(size, 0);
      if (!blank_header_sent_) {
        // The padding's header: its length (to the end of the file) and the blank magic code.
        const auto header = encode_blank_header(static_cast<std::int32_t>(blank_left_));
        std::copy_n(header.begin(), std::min<std::size_t>(size, 8), blank_.begin());
        blank_header_sent_ = true;
      }
      blank_left_ -= static_cast<std::int64_t>(size);
      body = blank_;
    } else if (steady_ms() - last_write_ms_ >= master_.options_.heartbeat_interval_ms) {
      body = {};  // heartbeat
    } else {
      return wait();
    }
    send(body);
  }

  void send(std::span<const std::uint8_t> body) {
    header_ = encode_frame_header({next_transfer_, static_cast<std::int32_t>(body.size())});
    next_transfer_ += static_cast<std::int64_t>(body.size());
    rate_.add(static_cast<std::int64_t>(body.size()), steady_ms());
    writing_ = true;
    const std::array<asio::const_buffer, 2> buffers{asio::buffer(header_), asio::buffer(body.data(), body.size())};
    asio::async_write(socket_, buffers,
                      [self = shared_from_this()](const boost::system::error_code& error, std::size_t) {
                        self->writing_ = false;
                        if (self->closed_) return;
                        if (error) return self->close(error.message());
                        self->last_write_ms_ = steady_ms();
                        self->pump();
                      });
  }

  void wait() {
    waiting_ = true;
    master_.idle_.store(true, std::memory_order_release);
    const std::int64_t until_heartbeat = master_.options_.heartbeat_interval_ms - (steady_ms() - last_write_ms_);
    wait_timer_.expires_after(std::chrono::milliseconds(std::clamp<std::int64_t>(until_heartbeat, 1, kIdleWaitMs)));
    wait_timer_.async_wait([self = shared_from_this()](const boost::system::error_code&) { self->pump(); });
  }

  HaMaster& master_;
  tcp::socket socket_;
  asio::steady_timer wait_timer_;
  const std::uint64_t id_;
  std::string peer_;
  std::array<std::uint8_t, 256> read_buffer_{};
  OffsetReportReader reports_;
  std::int64_t next_transfer_ = -1;  // -1 until the slave's first report
  plugin::v1::StoredSlice slice_;    // committed records being sent, in pieces of at most a batch
  std::size_t slice_sent_ = 0;
  std::int64_t blank_left_ = 0;      // end-of-file padding still to send
  bool blank_header_sent_ = false;
  std::vector<std::uint8_t> blank_;
  std::array<std::uint8_t, kFrameHeaderSize> header_{};
  std::int64_t last_read_ms_ = 0;
  std::int64_t last_write_ms_ = 0;
  TransferRate rate_;
  bool writing_ = false;
  bool waiting_ = false;
  bool closed_ = false;
};

HaMaster::HaMaster(std::shared_ptr<plugin::v1::MessageStore> store, ReplicaAcks& acks, HaMasterOptions options)
    : store_(std::move(store)), acks_(acks), options_(std::move(options)), acceptor_(io_), tick_timer_(io_) {}

HaMaster::~HaMaster() { stop(); }

Result<std::uint16_t> HaMaster::start() {
  boost::system::error_code error;
  const auto address = asio::ip::make_address(options_.host, error);
  if (error) return Status::invalid_argument("HA listen host \"" + options_.host + "\": " + error.message());
  const tcp::endpoint endpoint(address, options_.port);
  const auto failed = [&](const char* step) {
    return Status::io_error("cannot listen for slaves on " + options_.host + ":" + std::to_string(options_.port) +
                            ": " + step + ": " + error.message());
  };
  acceptor_.open(endpoint.protocol(), error);
  if (error) return failed("open");
  acceptor_.set_option(tcp::acceptor::reuse_address(true), error);
  if (error) return failed("SO_REUSEADDR");
  acceptor_.bind(endpoint, error);
  if (error) return failed("bind");
  acceptor_.listen(asio::socket_base::max_listen_connections, error);
  if (error) return failed("listen");
  const std::uint16_t port = acceptor_.local_endpoint().port();
  accept_next();
  tick();
  started_ = true;
  thread_ = std::thread([this] {
    plugin::v1::name_this_thread("HAService");
    io_.run();
  });
  kernel::logger("ha")->info("accepting slaves on {}:{}", options_.host, port);
  return port;
}

void HaMaster::stop() {
  if (!started_) return;
  started_ = false;
  asio::post(io_, [this] {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    tick_timer_.cancel();
    auto all = connections_;
    for (auto& c : all) c->close("the master is stopping");
  });
  // Runs after the closes above: the io thread does every socket operation.
  asio::post(io_, [this] { io_.stop(); });
  if (thread_.joinable()) thread_.join();
  acks_.fail_all();
}

void HaMaster::notify_appended() {
  // A load first: with no slave waiting, every append pays a read, not a write to a shared line.
  if (!idle_.load(std::memory_order_acquire) || !idle_.exchange(false, std::memory_order_acq_rel)) return;
  asio::post(io_, [this] {
    for (auto& c : connections_) c->wake();
  });
}

void HaMaster::accept_next() {
  acceptor_.async_accept([this](const boost::system::error_code& error, tcp::socket socket) {
    if (error == asio::error::operation_aborted || !acceptor_.is_open()) return;
    if (!error) {
      auto connection = std::make_shared<Connection>(*this, std::move(socket), next_id_++);
      connections_.push_back(connection);
      kernel::logger("ha")->info("slave {} connected", connection->peer());
      connection->start();
    } else {
      kernel::logger("ha")->warn("accepting a slave failed: {}", error.message());
    }
    accept_next();
  });
}

void HaMaster::tick() {
  const std::int64_t now = steady_ms();
  acks_.expire(now);
  auto all = connections_;
  for (auto& c : all) {
    if (now - c->last_read_ms() > options_.housekeeping_interval_ms) {
      c->close("silent for " + std::to_string(now - c->last_read_ms()) + " ms (ha_housekeeping_interval)");
    }
  }
  tick_timer_.expires_after(kTick);
  tick_timer_.async_wait([this](const boost::system::error_code& error) {
    if (!error) tick();
  });
}

Result<protocol::HaRuntimeInfo> HaMaster::runtime_info(std::int64_t max_gap_not_in_sync) {
  struct Seen {
    std::uint64_t id;
    std::string peer;
    std::int64_t per_second;
    std::int64_t next_transfer;
  };
  MQKIT_ASSIGN_OR_RETURN(const std::vector<Seen> seen, ask_io_thread(io_, [this] {
                           std::vector<Seen> out;
                           const std::int64_t now = steady_ms();
                           for (auto& c : connections_) {
                             out.push_back({c->id(), c->peer(), c->transferred_per_second(now), c->next_transfer()});
                           }
                           return out;
                         }));
  protocol::HaRuntimeInfo info;
  info.master = true;
  info.master_commit_log_max_offset = store_->stats().commit_log_max_offset;
  const std::vector<ReplicaAcks::Slave> acked = acks_.slaves();
  for (const Seen& slave : seen) {
    protocol::HaConnectionRuntimeInfo c;
    c.addr = slave.peer;
    const auto it = std::find_if(acked.begin(), acked.end(), [&](const auto& a) { return a.id == slave.id; });
    c.slave_ack_offset = it == acked.end() ? -1 : it->acked_offset;
    c.diff = info.master_commit_log_max_offset - c.slave_ack_offset;
    c.in_sync = c.slave_ack_offset >= 0 && c.diff < max_gap_not_in_sync;
    c.transferred_byte_in_second = slave.per_second;
    c.transfer_from_where = slave.next_transfer;
    info.in_sync_slave_nums += c.in_sync ? 1 : 0;
    info.ha_connection_info.push_back(std::move(c));
  }
  return info;
}

void HaMaster::remove(const Connection* connection) {
  std::erase_if(connections_, [connection](const auto& c) { return c.get() == connection; });
}

}  // namespace mqkit::broker::ha
