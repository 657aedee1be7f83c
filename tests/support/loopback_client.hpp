// LoopbackClient: a plain TCP connection to 127.0.0.1:port for tests that speak a text protocol
// byte by byte (HTTP to the metrics exporters), with a 5 s receive timeout. Closed when it goes.
#pragma once

#include <cstdint>
#include <string>

namespace mqkit::testing {

class LoopbackClient {
 public:
  explicit LoopbackClient(std::uint16_t port);
  ~LoopbackClient();
  LoopbackClient(const LoopbackClient&) = delete;
  LoopbackClient& operator=(const LoopbackClient&) = delete;

  bool connected() const noexcept { return connected_; }
  // Sends all of `bytes`, or as much as the peer takes before closing.
  void send(const std::string& bytes);
  // No more to send (the peer reads end of stream).
  void finish_sending();
  // Everything until the peer closes, or 5 s pass without data.
  std::string read_all();

 private:
  int fd_;
  bool connected_ = false;
};

}  // namespace mqkit::testing
