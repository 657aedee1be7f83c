// A plain blocking TCP client for wire-level tests: writes hand-made bytes, reads frames back
// with the codec, and notices when the server hangs up. Every read is bounded by a deadline.
#pragma once

#include <poll.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "transports/remoting/codec/frame_codec.hpp"

namespace mqkit::transport_testing {

class RawClient {
 public:
  explicit RawClient(std::uint16_t port) : socket_(io_) {
    socket_.connect({boost::asio::ip::make_address("127.0.0.1"), port});
  }

  void write(const std::vector<std::uint8_t>& bytes) {
    boost::system::error_code ignored;  // the server may already have hung up
    boost::asio::write(socket_, boost::asio::buffer(bytes), ignored);
  }

  // The next frame, or nullopt when the peer closed or `timeout` passed (see closed()).
  std::optional<plugin::v1::RemotingCommand> read_frame(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      auto next = decoder_.next();
      if (next.is_ok() && next->has_value()) return std::move(**next);
      if (!next.is_ok() || closed_ || !wait_readable(deadline)) return std::nullopt;
      pull();
    }
  }

  // True when the server closes the connection before `timeout` (bytes it sends are kept).
  bool closed_by_peer(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!closed_ && wait_readable(deadline)) pull();
    return closed_;
  }

  // Every byte received so far, for checks on the exact header text.
  const std::string& received() const { return received_; }

 private:
  bool wait_readable(std::chrono::steady_clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd entry{socket_.native_handle(), POLLIN, 0};
    return ::poll(&entry, 1, static_cast<int>(left.count())) > 0;
  }

  void pull() {
    std::uint8_t buffer[65536];
    boost::system::error_code error;
    const std::size_t n = socket_.read_some(boost::asio::buffer(buffer), error);
    if (error) {
      closed_ = true;
      return;
    }
    received_.append(reinterpret_cast<const char*>(buffer), n);
    decoder_.feed({buffer, n});
  }

  boost::asio::io_context io_;
  boost::asio::ip::tcp::socket socket_;
  plugins::transports::remoting::FrameDecoder decoder_;
  std::string received_;
  bool closed_ = false;
};

}  // namespace mqkit::transport_testing
