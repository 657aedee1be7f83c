// Connection: one TCP connection, server- or client-side, and the Channel the rest of mqkit
// sees. Both sides may send requests over it; responses are matched to invocations by opaque.
//
// Threads. Socket reads and writes, decoding, the watchdog and closing run on the connection's
// strand (io threads). The requests of one read go to the worker pool as one job, where
// RequestHandler::on_request runs for each in turn; answers given meanwhile on that worker are
// written together.
// send()/invoke()/close() may be called from any thread: send() encodes on the caller's thread
// and, when no write is under way, writes the frame at once from that thread (a non-blocking
// sendmsg; no io-thread wake-up per message); what the socket does not take is queued, and the
// strand writes everything queued in one gather write. A sender that streams (frames a few µs
// apart) queues instead, so that its frames share the strand's gather writes. The thread writing
// directly does not hold the send lock during its sendmsg: other senders (the io thread
// answering, a long-polling wake-up) only queue, and the writer takes their frames with its next
// sendmsg, so none of them waits for another thread's syscall or for its preemption.
//
// TLS (tls.hpp): an accepted connection on a transport with tls_mode enforcing, or an opened one
// with tls_enable, runs a TLS handshake on the strand before its first read or write (a
// permissive server first peeks at the client's first byte). Frames sent meanwhile wait in the
// send queue. Such connections never write directly from the sending thread: the TLS stream's
// state belongs to the strand.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "mqkit/plugin/v1/transport.hpp"
#include "transports/remoting/codec/frame_codec.hpp"
#include "transports/remoting/once_callback.hpp"
#include "transports/remoting/runtime.hpp"

namespace mqkit::plugins::transports::remoting {

class Connection final : public v1::Channel, public std::enable_shared_from_this<Connection> {
 public:
  // Which end opened the connection: decides the TLS role.
  enum class Side : std::uint8_t { kAccepted, kOpened };

  Connection(std::shared_ptr<Runtime> runtime, boost::asio::ip::tcp::socket socket,
             std::shared_ptr<v1::RequestHandler> handler, Side side);
  ~Connection() override;

  // Registers with the runtime and starts reading. False (and the socket is closed) when the
  // transport is stopping.
  bool start();
  // Requests from the peer go to `handler` from now on (ignored when null).
  void set_handler(std::shared_ptr<v1::RequestHandler> handler);
  // Closes with a reason for the log (close() says "closed locally").
  void close_because(std::string reason) noexcept;

  std::uint64_t id() const noexcept override { return id_; }
  std::string remote_address() const noexcept override { return remote_address_; }
  std::string local_address() const noexcept override { return local_address_; }
  bool is_open() const noexcept override { return open_.load(); }
  v1::Status send(v1::RemotingCommand command) noexcept override;
  void invoke(v1::RemotingCommand request, std::chrono::milliseconds timeout,
              v1::ResponseCallback done) noexcept override;
  void close() noexcept override;

 private:
  using Clock = std::chrono::steady_clock;
  struct Pending {
    std::shared_ptr<OnceCallback> call;
    Clock::time_point deadline;
    std::int32_t code = 0;
  };

  // --- strand only ---
  // Plain TCP: reads at once. TLS: detects (permissive server) and handshakes first.
  void begin_reading();
  void detect_tls();
  void handshake();
  void transport_ready();
  void start_read();
  void on_read(const boost::system::error_code& error, std::size_t bytes);
  void process_frames();
  void resume_reading();
  void on_request(v1::RemotingCommand request);
  void submit_requests();
  void on_response(v1::RemotingCommand response);
  void write_queued();
  void on_written(const boost::system::error_code& error);
  void arm_watchdog();
  void on_watchdog();
  void arm_expiry();
  void on_expiry(const boost::system::error_code& error);
  void do_close(const std::string& reason, v1::LogLevel level);

  // --- any thread ---
  v1::Status enqueue(EncodedFrame frame);
  void schedule_write();
  // With `lock` (on send_mutex_) held, no write scheduled and no direct writer: this thread
  // becomes the direct writer and writes what is queued, including frames other threads queue
  // meanwhile, as much as the socket takes without blocking. The lock is released around each
  // sendmsg, so other senders only queue and never wait for this thread's syscall (or for its
  // preemption). Returns with the lock held: true when nothing is left for the strand (queue
  // empty, or the connection closing), false when the socket is full and the strand must wait
  // for it. `now` (the caller's clock read) stamps the write for the idle check.
  bool write_directly(std::unique_lock<std::mutex>& lock, Clock::time_point now);
  // Before the socket closes: no direct write may use its descriptor afterwards.
  void close_sends();
  struct QueuedRequest {
    v1::RemotingCommand command;
    std::shared_ptr<v1::RequestHandler> handler;
  };
  // Whether one read's requests run on the io thread (Options::inline_max_requests).
  bool runs_inline(const std::vector<QueuedRequest>& requests) const;
  void handle_requests(std::vector<QueuedRequest>& requests, const JobContext& context);
  void handle_request(v1::RequestHandler& handler, v1::RemotingCommand request,
                      std::chrono::steady_clock::duration waited, std::size_t queue_size);
  void finish_request();
  std::shared_ptr<v1::RequestHandler> handler() const;
  std::string describe_peer() const;

  const std::shared_ptr<Runtime> runtime_;
  const std::uint64_t id_;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  boost::asio::ip::tcp::socket socket_;
  const Side side_;
  // The TLS stream over socket_ when this connection may speak TLS (null: plain TCP; a
  // permissive server drops it when the client speaks plain). Strand-owned, like its buffer.
  std::unique_ptr<boost::asio::ssl::stream<boost::asio::ip::tcp::socket&>> tls_;
  std::vector<std::uint8_t> tls_write_buffer_;
  bool transport_ready_ = true;  // strand-owned: false while TLS is being detected or negotiated
  boost::asio::steady_timer watchdog_;
  std::string remote_address_;
  std::string local_address_;
  std::atomic<bool> open_{true};
  std::atomic<bool> closed_{false};  // do_close ran (or is running)

  // Strand-owned read state.
  FrameDecoder decoder_;
  // Written on the strand only; atomic because finish_request reads it on a worker to decide
  // whether the connection needs waking.
  std::atomic<bool> reading_paused_{false};
  Clock::time_point last_activity_;
  Clock::time_point frame_started_;
  std::uint64_t frames_at_frame_start_ = 0;
  bool frame_in_progress_ = false;
  std::atomic<std::size_t> in_flight_{0};
  // Requests decoded from one read, handed to the worker pool as one job (one wake-up).
  std::vector<QueuedRequest> decoded_requests_;

  mutable std::mutex handler_mutex_;
  std::shared_ptr<v1::RequestHandler> handler_;

  // Send queue: filled by any thread, drained by the strand.
  std::mutex send_mutex_;
  std::deque<EncodedFrame> send_queue_;
  std::size_t queued_bytes_ = 0;  // queued plus being written
  bool write_scheduled_ = false;
  bool direct_writer_ = false;  // a thread is in write_directly (never while write_scheduled_)
  std::condition_variable direct_writer_done_;  // close_sends waits for it
  Clock::time_point last_enqueue_{};  // streaming detection (enqueue)
  int quick_sends_in_a_row_ = 0;
  bool send_closed_ = false;
  std::vector<EncodedFrame> writing_;  // strand-owned: frames of the write in progress
  std::size_t writing_bytes_ = 0;
  int native_socket_ = -1;  // for direct writes (-1: none, TLS); valid until send_closed_ (do_close sets it first)
  std::atomic<Clock::rep> last_direct_write_{0};  // for the idle check: steady_clock ticks

  // Invocations waiting for their response, by opaque. One timer per connection, set to the
  // earliest deadline, fails the invocations whose time is up (not a timer per invocation).
  std::mutex pending_mutex_;
  std::unordered_map<std::int32_t, Pending> pending_;
  bool pending_closed_ = false;
  bool expiry_armed_ = false;       // expiry_at_ is what expiry_timer_ is (being) set to
  Clock::time_point expiry_at_{};
  boost::asio::steady_timer expiry_timer_;  // strand-owned
};

}  // namespace mqkit::plugins::transports::remoting
