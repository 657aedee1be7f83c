#include "transports/remoting/connection.hpp"

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/write.hpp>

#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <optional>
#include <system_error>
#include <utility>

#include "transports/remoting/address.hpp"
#include "transports/remoting/codec/command_text.hpp"
#include "transports/remoting/exception_text.hpp"
#include "transports/remoting/tls.hpp"

namespace mqkit::plugins::transports::remoting {

namespace asio = boost::asio;
using v1::LogLevel;
using v1::RemotingCommand;
using v1::Status;

namespace {

// RemotingSysResponseCode values the transport itself answers with.
constexpr std::int32_t kSystemBusy = 2;
constexpr std::int32_t kRequestCodeNotSupported = 3;

// The most one gather write takes from the send queue.
constexpr std::size_t kMaxWriteBytes = 1024 * 1024;
// Requests of one read handled before their answers so far are handed to the io thread.
constexpr std::size_t kAnswersPerWrite = 32;
// Frames sent on one connection less than kCoalesceWindow apart, kQuickSendsToCoalesce times in
// a row, are left to the strand's gather write instead of a direct sendmsg each: a streaming
// sender's frames then share syscalls (bench/RESULTS.md, "write coalescing": -40 % broker CPU
// per plain async send), while a paced sender (10,000 msg/s is 100 µs apart) keeps the direct
// write and its latency.
constexpr std::chrono::microseconds kCoalesceWindow{20};
constexpr int kQuickSendsToCoalesce = 4;
// Buffers one direct sendmsg() takes (Linux allows 1024; a frame has at most a few).
constexpr std::size_t kDirectWriteBuffers = 64;

// How few requests in flight let a paused connection read again.
constexpr std::size_t resume_mark(std::size_t max_in_flight) { return max_in_flight / 2; }

// The connection whose requests this worker thread is handling (handle_requests).
thread_local const Connection* t_answering = nullptr;

}  // namespace

Connection::Connection(std::shared_ptr<Runtime> runtime, asio::ip::tcp::socket socket,
                       std::shared_ptr<v1::RequestHandler> handler, Side side)
    : runtime_(std::move(runtime)),
      id_(runtime_->next_connection_id()),
      strand_(asio::make_strand(runtime_->io())),
      socket_(std::move(socket)),
      side_(side),
      watchdog_(strand_),
      decoder_(runtime_->options().max_frame_size),
      handler_(std::move(handler)),
      expiry_timer_(strand_) {
  boost::system::error_code error;
  const auto remote = socket_.remote_endpoint(error);
  remote_address_ = error ? "?" : endpoint_text(remote);
  const auto local = socket_.local_endpoint(error);
  local_address_ = error ? "?" : endpoint_text(local);
  socket_.set_option(asio::ip::tcp::no_delay(true), error);
  asio::ssl::context* tls = side_ == Side::kAccepted ? runtime_->tls().server.get() : runtime_->tls().client.get();
  if (tls) {
    tls_ = std::make_unique<asio::ssl::stream<asio::ip::tcp::socket&>>(socket_, *tls);
  } else {
    native_socket_ = socket_.native_handle();
  }
}

Connection::~Connection() = default;

std::string Connection::describe_peer() const {
  return "connection " + std::to_string(id_) + " with " + remote_address_ + " (local " + local_address_ + ")";
}

bool Connection::start() {
  if (!runtime_->add(shared_from_this())) {
    close_sends();
    boost::system::error_code ignored;
    socket_.close(ignored);
    open_ = false;
    closed_ = true;
    return false;
  }
  runtime_->log().debug(describe_peer() + " opened");
  runtime_->run_on(strand_, [self = shared_from_this()] {
    self->last_activity_ = Clock::now();
    self->begin_reading();
    self->arm_watchdog();
  });
  return true;
}

void Connection::set_handler(std::shared_ptr<v1::RequestHandler> handler) {
  if (!handler) return;
  std::lock_guard lock(handler_mutex_);
  handler_ = std::move(handler);
}

std::shared_ptr<v1::RequestHandler> Connection::handler() const {
  std::lock_guard lock(handler_mutex_);
  return handler_;
}

// --- reading ----------------------------------------------------------------------------------

void Connection::begin_reading() {
  if (!tls_) {
    start_read();
    return;
  }
  transport_ready_ = false;
  if (side_ == Side::kAccepted && runtime_->options().tls_mode == Options::TlsServerMode::kPermissive) {
    detect_tls();
  } else {
    handshake();
  }
}

void Connection::detect_tls() {
  socket_.async_wait(asio::ip::tcp::socket::wait_read,
                     asio::bind_executor(strand_, [self = shared_from_this()](const boost::system::error_code& error) {
                       if (self->closed_ || error == asio::error::operation_aborted) return;
                       if (error) {
                         self->do_close("waiting for the first bytes failed: " + error.message(), LogLevel::kInfo);
                         return;
                       }
                       std::uint8_t first = 0;
                       const ssize_t peeked =
                           ::recv(self->socket_.native_handle(), &first, 1, MSG_PEEK | MSG_DONTWAIT);
                       if (peeked == 0) {
                         self->do_close("closed by the peer", LogLevel::kDebug);
                       } else if (peeked < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
                         self->detect_tls();
                       } else if (peeked < 0) {
                         self->do_close("read failed: " + std::system_category().message(errno), LogLevel::kInfo);
                       } else if (starts_tls_handshake(first)) {
                         self->handshake();
                       } else {
                         self->tls_.reset();  // a plain client (tls_mode permissive)
                         self->transport_ready();
                       }
                     }));
}

void Connection::handshake() {
  const auto role = side_ == Side::kAccepted ? asio::ssl::stream_base::server : asio::ssl::stream_base::client;
  tls_->async_handshake(role, asio::bind_executor(strand_, [self = shared_from_this()](
                                                               const boost::system::error_code& error) {
                          if (self->closed_ || error == asio::error::operation_aborted) return;
                          if (error) {
                            self->do_close("TLS handshake failed: " + error.message(), LogLevel::kInfo);
                            return;
                          }
                          self->transport_ready();
                        }));
}

void Connection::transport_ready() {
  transport_ready_ = true;
  last_activity_ = Clock::now();
  start_read();
  write_queued();  // what was sent during the handshake
}

void Connection::start_read() {
  if (closed_) return;
  const auto area = decoder_.prepare(decoder_.read_hint());
  auto on_read = asio::bind_executor(strand_, [self = shared_from_this()](const boost::system::error_code& error,
                                                                          std::size_t bytes) {
    self->on_read(error, bytes);
  });
  if (tls_) {
    tls_->async_read_some(asio::buffer(area.data(), area.size()), std::move(on_read));
  } else {
    socket_.async_read_some(asio::buffer(area.data(), area.size()), std::move(on_read));
  }
}

void Connection::on_read(const boost::system::error_code& error, std::size_t bytes) {
  if (error) {
    // A TLS peer that closes without close_notify truncates the stream: a close all the same.
    if (error == asio::error::eof || error == asio::ssl::error::stream_truncated) {
      do_close("closed by the peer", LogLevel::kDebug);
    } else if (error != asio::error::operation_aborted) {
      do_close("read failed: " + error.message(), LogLevel::kInfo);
    }
    return;
  }
  decoder_.commit(bytes);
  last_activity_ = Clock::now();
  process_frames();
}

void Connection::process_frames() {
  const std::size_t max_in_flight = runtime_->options().max_in_flight_per_connection;
  while (!closed_) {
    if (in_flight_.load() >= max_in_flight) {
      // Stop reading: the kernel's receive buffer fills and TCP slows the peer down.
      reading_paused_ = true;
      submit_requests();
      // Requests finished meanwhile down to the resume mark saw the flag unset and woke nobody.
      if (in_flight_.load() > resume_mark(max_in_flight)) return;
      reading_paused_ = false;
      continue;
    }
    auto next = decoder_.next();
    if (!next.is_ok()) {
      submit_requests();  // the frames before the bad one were fine
      do_close(next.status().message(), LogLevel::kWarn);
      return;
    }
    if (!next->has_value()) break;
    RemotingCommand command = std::move(**next);
    if (command.is_response()) {
      on_response(std::move(command));
    } else {
      on_request(std::move(command));
    }
  }
  submit_requests();
  if (closed_) return;
  if (decoder_.buffered_bytes() == 0) {
    frame_in_progress_ = false;
  } else if (!frame_in_progress_ || frames_at_frame_start_ != decoder_.frames_decoded()) {
    frame_in_progress_ = true;
    frame_started_ = Clock::now();
    frames_at_frame_start_ = decoder_.frames_decoded();
  }
  start_read();
}

void Connection::resume_reading() {
  if (closed_ || !reading_paused_ ||
      in_flight_.load() > resume_mark(runtime_->options().max_in_flight_per_connection)) {
    return;
  }
  reading_paused_ = false;
  // The clock for a partial frame restarts: the pause was ours, not the peer's.
  frame_started_ = Clock::now();
  frames_at_frame_start_ = decoder_.frames_decoded();
  process_frames();
}

void Connection::on_request(RemotingCommand request) {
  auto target = handler();
  if (!target) {
    if (!request.is_oneway()) {
      const std::string remark = " request type " + std::to_string(request.code) + " not supported";
      (void)send(RemotingCommand::response_to(request, kRequestCodeNotSupported, remark));
    }
    return;
  }
  in_flight_.fetch_add(1);
  decoded_requests_.push_back(QueuedRequest{std::move(request), std::move(target)});
}

bool Connection::runs_inline(const std::vector<QueuedRequest>& requests) const {
  const Options& options = runtime_->options();
  if (requests.size() > options.inline_max_requests) return false;
  return std::all_of(requests.begin(), requests.end(),
                     [&](const QueuedRequest& request) { return options.is_quick_request(request.command.code); });
}

void Connection::submit_requests() {
  if (decoded_requests_.empty()) return;
  if (runs_inline(decoded_requests_)) {
    // A few quick requests: waking a worker for them would cost more than handling them, twice
    // over on a small machine (the wake-up's CPU and its latency). A paced peer's requests come
    // one or two to a read (its timer fires late and two sends are due). A pipelining peer's
    // come many to a read and go to the workers, where they overlap with reading.
    std::vector<QueuedRequest> requests = std::move(decoded_requests_);
    decoded_requests_ = {};
    handle_requests(requests, JobContext{});
    return;
  }
  // One job for everything one read brought: a pipelining peer costs one worker wake-up per
  // read rather than one per request. The requests still run one by one in arrival order.
  const std::size_t count = decoded_requests_.size();
  const bool queued = runtime_->workers().submit(
      [self = shared_from_this(), requests = std::move(decoded_requests_)](const JobContext& context) mutable {
        self->handle_requests(requests, context);
      },
      count);
  decoded_requests_ = {};
  if (!queued) {  // stopping: the requests are dropped with the connection
    for (std::size_t i = 0; i < count; ++i) finish_request();
  }
}

void Connection::handle_requests(std::vector<QueuedRequest>& requests, const JobContext& context) {
  const auto queued_at = std::chrono::steady_clock::now() - context.waited;
  // Answers given on this thread meanwhile are queued and written together: after every
  // kAnswersPerWrite requests and at the end (answers from other threads are written at once).
  const Connection* const outer = t_answering;
  t_answering = this;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (i > 0 && i % kAnswersPerWrite == 0) schedule_write();
    // A request waits for its worker and for the requests of its read ahead of it.
    const auto waited = i == 0 ? context.waited : std::chrono::steady_clock::now() - queued_at;
    try {
      handle_request(*requests[i].handler, std::move(requests[i].command), waited,
                     context.queue_size + requests.size() - i - 1);
    } catch (...) {
      runtime_->log().error(describe_peer() + ": request handler threw: " + current_exception_text());
      finish_request();
    }
  }
  t_answering = outer;
  schedule_write();
}

void Connection::handle_request(v1::RequestHandler& target, RemotingCommand request,
                                std::chrono::steady_clock::duration waited, std::size_t queue_size) {
  const auto max_wait = runtime_->options().queue_wait_budget(request.code);
  if (max_wait.count() > 0 && waited > max_wait) {
    // RocketMQ's fast failure: the client learns at once that the broker is overloaded
    // instead of timing out on a request that would be handled too late.
    const auto waited_ms = std::chrono::duration_cast<std::chrono::milliseconds>(waited).count();
    if (request.is_oneway()) {
      runtime_->log().debug(describe_peer() + ": dropped one-way request " + describe(request) + " after " +
                            std::to_string(waited_ms) + "ms in the worker queue");
    } else {
      (void)send(RemotingCommand::response_to(
          request, kSystemBusy,
          "[TIMEOUT_CLEAN_QUEUE]broker busy, start flow control for a while, period in queue: " +
              std::to_string(waited_ms) + "ms, size of queue: " + std::to_string(queue_size)));
    }
  } else {
    const std::shared_ptr<v1::Channel> channel = shared_from_this();
    target.on_request(channel, std::move(request));
  }
  finish_request();
}

void Connection::finish_request() {
  // A paused connection is woken once, when half its bound has drained, rather than at every
  // freed slot: waking it per request made the io thread read one request per wake-up, a
  // cross-thread hand-off per request for a peer that pipelines past the bound.
  const std::size_t left = in_flight_.fetch_sub(1) - 1;
  if (left == resume_mark(runtime_->options().max_in_flight_per_connection) && reading_paused_.load()) {
    runtime_->run_on(strand_, [self = shared_from_this()] { self->resume_reading(); });
  }
}

void Connection::on_response(RemotingCommand response) {
  Pending pending;
  {
    std::lock_guard lock(pending_mutex_);
    auto it = pending_.find(response.opaque);
    if (it == pending_.end()) {
      runtime_->log().debug(describe_peer() + ": dropped a response nobody waits for (timed out?): " +
                            describe(response));
      return;
    }
    pending = std::move(it->second);
    pending_.erase(it);
  }
  pending.call->fire(std::move(response), runtime_->log());
}

// --- writing ----------------------------------------------------------------------------------

Status Connection::send(RemotingCommand command) noexcept {
  try {
    if (!open_) return Status::unavailable(describe_peer() + " is closed");
    if (!command.is_response()) command.opaque = runtime_->next_opaque();
    MQKIT_ASSIGN_OR_RETURN(EncodedFrame frame, encode_frame(std::move(command), runtime_->options().max_frame_size));
    return enqueue(std::move(frame));
  } catch (...) {
    return Status::internal("send on " + describe_peer() + ": " + current_exception_text());
  }
}

Status Connection::enqueue(EncodedFrame frame) {
  const std::size_t size = frame.size();
  const std::size_t limit = runtime_->options().max_send_queue_bytes;
  {
    std::unique_lock lock(send_mutex_);
    // Not once close() was asked for either: a direct write would still reach the peer, where
    // a frame queued for the strand never did (the strand closes first).
    if (send_closed_ || !open_) return Status::unavailable(describe_peer() + " is closed");
    // One frame always fits an empty queue, however large: the bound is on backlog.
    if (queued_bytes_ > 0 && queued_bytes_ + size > limit) {
      return Status::resource_exhausted(describe_peer() + ": send queue holds " + std::to_string(queued_bytes_) +
                                        " bytes, another " + std::to_string(size) +
                                        " would exceed max_send_queue_bytes " + std::to_string(limit));
    }
    send_queue_.push_back(std::move(frame));
    queued_bytes_ += size;
    // The worker running this connection's requests writes its answers when it is done
    // with them (handle_requests), not one wake-up of the io thread per answer.
    // A direct writer (another thread) takes this frame with its next sendmsg.
    if (write_scheduled_ || direct_writer_ || t_answering == this) return Status::ok();
    // A sender that streams (a pipelining producer, a broker answering one) would pay one
    // sendmsg per frame written directly; the strand writes what gathers meanwhile at once.
    const Clock::time_point now = Clock::now();
    quick_sends_in_a_row_ =
        now - last_enqueue_ < kCoalesceWindow ? std::min(quick_sends_in_a_row_ + 1, kQuickSendsToCoalesce) : 0;
    last_enqueue_ = now;
    if (quick_sends_in_a_row_ < kQuickSendsToCoalesce && write_directly(lock, now)) return Status::ok();
    write_scheduled_ = true;
  }
  runtime_->run_on(strand_, [self = shared_from_this()] { self->write_queued(); });
  return Status::ok();
}

void Connection::schedule_write() {
  {
    std::unique_lock lock(send_mutex_);
    if (write_scheduled_ || direct_writer_ || send_queue_.empty() || send_closed_) return;
    if (write_directly(lock, Clock::now())) return;
    write_scheduled_ = true;
  }
  runtime_->run_on(strand_, [self = shared_from_this()] { self->write_queued(); });
}

bool Connection::write_directly(std::unique_lock<std::mutex>& lock, Clock::time_point now) {
  if (native_socket_ < 0) return false;  // TLS: the strand writes
  direct_writer_ = true;
  bool drained = true;
  while (!send_queue_.empty() && !send_closed_) {
    // Senders only push_back meanwhile: the queued frames, and the bytes these buffers point
    // into, stay where they are until this thread pops them.
    std::array<iovec, kDirectWriteBuffers> buffers{};
    std::size_t count = 0;
    std::size_t bytes = 0;
    auto add = [&](const std::uint8_t* data, std::size_t size) {
      if (count == buffers.size() || bytes >= kMaxWriteBytes) return;
      buffers[count++] = iovec{const_cast<std::uint8_t*>(data), size};
      bytes += size;
    };
    for (const EncodedFrame& frame : send_queue_) {
      if (count == buffers.size() || bytes >= kMaxWriteBytes) break;
      frame.for_each_part(add);
    }
    msghdr message{};
    message.msg_iov = buffers.data();
    message.msg_iovlen = count;
    lock.unlock();
    ssize_t written = 0;
    do {
      written = ::sendmsg(native_socket_, &message, MSG_DONTWAIT | MSG_NOSIGNAL);
    } while (written < 0 && errno == EINTR);
    lock.lock();
    if (written < 0) {
      // Full socket buffer (EAGAIN) or a failure: the strand's write waits, or reports and closes.
      drained = false;
      break;
    }
    last_direct_write_.store(now.time_since_epoch().count(), std::memory_order_relaxed);
    auto left = static_cast<std::size_t>(written);
    queued_bytes_ -= std::min(queued_bytes_, left);
    while (left > 0) {
      EncodedFrame& front = send_queue_.front();
      const std::size_t size = front.size();
      if (left < size) {
        drop_front(front, left);
        break;
      }
      left -= size;
      send_queue_.pop_front();
    }
    if (static_cast<std::size_t>(written) < bytes) {  // the socket buffer is full
      drained = false;
      break;
    }
  }
  direct_writer_ = false;
  if (send_closed_) {
    direct_writer_done_.notify_all();
    return true;  // close_sends drops what is left
  }
  return drained && send_queue_.empty();
}

void Connection::close_sends() {
  std::unique_lock lock(send_mutex_);
  send_closed_ = true;
  direct_writer_done_.wait(lock, [this] { return !direct_writer_; });
  send_queue_.clear();
}

void Connection::write_queued() {
  if (closed_ || !transport_ready_) return;  // transport_ready() writes what waits
  {
    std::lock_guard lock(send_mutex_);
    if (send_queue_.empty()) {
      write_scheduled_ = false;
      return;
    }
    // A write takes up to kMaxWriteBytes (and at least one frame): its bytes count against
    // max_send_queue_bytes until all of it is written, so one huge write would keep counting
    // frames the peer has long answered.
    std::size_t bytes = 0;
    while (!send_queue_.empty() && (writing_.empty() || bytes + send_queue_.front().size() <= kMaxWriteBytes)) {
      bytes += send_queue_.front().size();
      writing_.push_back(std::move(send_queue_.front()));
      send_queue_.pop_front();
    }
  }
  auto on_written = asio::bind_executor(strand_, [self = shared_from_this()](const boost::system::error_code& error,
                                                                             std::size_t /*bytes*/) {
    self->on_written(error);
  });
  writing_bytes_ = 0;
  if (tls_) {
    // A TLS stream encrypts one buffer per record: one contiguous buffer makes full records.
    tls_write_buffer_.clear();
    for (const EncodedFrame& frame : writing_) {
      writing_bytes_ += frame.size();
      frame.for_each_part([&](const std::uint8_t* data, std::size_t size) {
        tls_write_buffer_.insert(tls_write_buffer_.end(), data, data + size);
      });
    }
    asio::async_write(*tls_, asio::buffer(tls_write_buffer_), std::move(on_written));
    return;
  }
  std::vector<asio::const_buffer> buffers;
  for (const EncodedFrame& frame : writing_) {
    writing_bytes_ += frame.size();
    frame.for_each_part([&](const std::uint8_t* data, std::size_t size) { buffers.emplace_back(data, size); });
  }
  asio::async_write(socket_, buffers, std::move(on_written));
}

void Connection::on_written(const boost::system::error_code& error) {
  // The frames (and the keep_alive of their slices) are released only now that the kernel
  // has copied their bytes.
  writing_.clear();
  {
    std::lock_guard lock(send_mutex_);
    queued_bytes_ -= std::min(queued_bytes_, writing_bytes_);
  }
  writing_bytes_ = 0;
  if (error) {
    if (error != asio::error::operation_aborted) do_close("write failed: " + error.message(), LogLevel::kInfo);
    return;
  }
  last_activity_ = Clock::now();
  write_queued();
}

// --- invocations ------------------------------------------------------------------------------

void Connection::invoke(RemotingCommand request, std::chrono::milliseconds timeout,
                        v1::ResponseCallback done) noexcept {
  std::shared_ptr<OnceCallback> call;
  std::int32_t opaque = 0;
  bool registered = false;
  try {
    call = std::make_shared<OnceCallback>(std::move(done));
    request.flag &= ~(RemotingCommand::kResponseFlag | RemotingCommand::kOnewayFlag);
    const std::int32_t code = request.code;
    opaque = runtime_->next_opaque();
    request.opaque = opaque;
    auto frame = encode_frame(std::move(request), runtime_->options().max_frame_size);
    if (!frame.is_ok()) {
      runtime_->run_on_io([runtime = runtime_, call, status = frame.status()] {
        call->fire(status, runtime->log());
      });
      return;
    }
    bool arm = false;
    {
      std::lock_guard lock(pending_mutex_);
      if (pending_closed_) {
        runtime_->run_on_io([runtime = runtime_, call, peer = describe_peer()] {
          call->fire(Status::unavailable(peer + " is closed"), runtime->log());
        });
        return;
      }
      const auto deadline = Clock::now() + timeout;
      pending_[opaque] = Pending{call, deadline, code};
      registered = true;
      // Invocations usually share one timeout, so deadlines grow and the timer stays as it is.
      if (!expiry_armed_ || deadline < expiry_at_) {
        expiry_armed_ = true;
        expiry_at_ = deadline;
        arm = true;
      }
    }
    if (arm) runtime_->run_on(strand_, [self = shared_from_this()] { self->arm_expiry(); });
    Status sent = enqueue(std::move(*frame));
    if (sent.is_ok()) return;
    Pending pending;
    {
      std::lock_guard lock(pending_mutex_);
      auto it = pending_.find(opaque);
      if (it == pending_.end()) return;  // already failed by close
      pending = std::move(it->second);
      pending_.erase(it);
    }
    runtime_->run_on_io([runtime = runtime_, call, sent] { call->fire(sent, runtime->log()); });
  } catch (...) {
    const Status failed = Status::internal("invoke on " + describe_peer() + ": " + current_exception_text());
    if (!call) {
      if (done) done(failed);
      return;
    }
    if (registered) {
      std::lock_guard lock(pending_mutex_);
      pending_.erase(opaque);
    }
    call->fire(failed, runtime_->log());
  }
}

void Connection::arm_expiry() {
  Clock::time_point at;
  {
    std::lock_guard lock(pending_mutex_);
    if (!expiry_armed_ || closed_) return;
    at = expiry_at_;
  }
  expiry_timer_.expires_at(at);  // a wait already set is cancelled (operation_aborted)
  expiry_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& error) {
    self->on_expiry(error);
  });
}

void Connection::on_expiry(const boost::system::error_code& error) {
  if (error || closed_) return;  // re-armed or closing
  std::vector<std::pair<std::int32_t, Pending>> expired;
  {
    std::lock_guard lock(pending_mutex_);
    const auto now = Clock::now();
    std::optional<Clock::time_point> next;
    for (auto it = pending_.begin(); it != pending_.end();) {
      if (it->second.deadline <= now) {
        expired.emplace_back(it->first, std::move(it->second));
        it = pending_.erase(it);
      } else {
        if (!next || it->second.deadline < *next) next = it->second.deadline;
        ++it;
      }
    }
    expiry_armed_ = next.has_value();
    if (next) expiry_at_ = *next;
  }
  for (auto& [opaque, pending] : expired) {
    pending.call->fire(Status::timeout("no response to request code " + std::to_string(pending.code) +
                                       " (opaque " + std::to_string(opaque) + ") from " + remote_address_),
                       runtime_->log());
  }
  arm_expiry();
}

// --- watchdog and closing ---------------------------------------------------------------------

void Connection::arm_watchdog() {
  const auto& o = runtime_->options();
  std::chrono::milliseconds shortest{0};
  for (auto timeout : {o.read_timeout, o.idle_timeout}) {
    if (timeout.count() > 0 && (shortest.count() == 0 || timeout < shortest)) shortest = timeout;
  }
  if (shortest.count() == 0 || closed_) return;
  // A quarter of the shortest timeout keeps the overshoot small without waking often.
  const auto tick = std::clamp(shortest / 4, std::chrono::milliseconds(5), std::chrono::milliseconds(1000));
  watchdog_.expires_after(tick);
  watchdog_.async_wait([self = shared_from_this()](const boost::system::error_code& error) {
    if (!error) self->on_watchdog();
  });
}

void Connection::on_watchdog() {
  if (closed_) return;
  const auto& o = runtime_->options();
  const auto now = Clock::now();
  if (o.read_timeout.count() > 0 && frame_in_progress_ && !reading_paused_ &&
      now - frame_started_ >= o.read_timeout) {
    do_close("a frame was still incomplete after read_timeout " + std::to_string(o.read_timeout.count()) +
                 "ms (" + std::to_string(decoder_.buffered_bytes()) + " bytes buffered)",
             LogLevel::kWarn);
    return;
  }
  const Clock::time_point last_write{Clock::duration(last_direct_write_.load(std::memory_order_relaxed))};
  const Clock::time_point last_activity = std::max(last_activity_, last_write);
  if (o.idle_timeout.count() > 0 && now - last_activity >= o.idle_timeout && in_flight_.load() == 0) {
    bool waiting;
    {
      std::lock_guard lock(pending_mutex_);
      waiting = !pending_.empty();
    }
    if (!waiting) {
      do_close("idle for " + std::to_string(o.idle_timeout.count()) + "ms", LogLevel::kInfo);
      return;
    }
  }
  arm_watchdog();
}

void Connection::close() noexcept { close_because("closed locally"); }

void Connection::close_because(std::string reason) noexcept {
  try {
    open_ = false;
    runtime_->run_on(strand_, [self = shared_from_this(), reason = std::move(reason)] {
      self->do_close(reason, LogLevel::kDebug);
    });
  } catch (...) {
    runtime_->log().error("closing " + describe_peer() + ": " + current_exception_text());
  }
}

void Connection::do_close(const std::string& reason, LogLevel level) {
  if (closed_.exchange(true)) return;
  open_ = false;
  runtime_->log().write(level, "closing " + describe_peer() + ": " + reason);
  close_sends();
  boost::system::error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  watchdog_.cancel();
  expiry_timer_.cancel();
  std::unordered_map<std::int32_t, Pending> pending;
  {
    std::lock_guard lock(pending_mutex_);
    pending_closed_ = true;
    pending.swap(pending_);
  }
  for (auto& [opaque, p] : pending) {
    p.call->fire(Status::unavailable(describe_peer() + " closed before the response to request code " +
                                     std::to_string(p.code) + " (opaque " + std::to_string(opaque) +
                                     ") arrived: " + reason),
                 runtime_->log());
  }
  runtime_->remove(id_);
  if (auto target = handler()) {
    const std::shared_ptr<v1::Channel> channel = shared_from_this();
    auto notify = [target, channel](const JobContext&) { target->on_channel_closed(channel); };
    if (!runtime_->workers().submit(notify)) target->on_channel_closed(channel);
  }
}

}  // namespace mqkit::plugins::transports::remoting
