// A ResponseCallback that runs at most once, whichever path (response, timeout, close, error)
// reaches it first, and that never lets the callback's exception escape.
#pragma once

#include <atomic>
#include <string>

#include "mqkit/plugin/v1/transport.hpp"
#include "transports/remoting/exception_text.hpp"
#include "transports/remoting/log.hpp"

namespace mqkit::plugins::transports::remoting {

class OnceCallback {
 public:
  explicit OnceCallback(v1::ResponseCallback done) noexcept : done_(std::move(done)) {}

  void fire(v1::Result<v1::RemotingCommand> result, const Log& log) noexcept {
    if (fired_.exchange(true)) return;
    try {
      done_(std::move(result));
    } catch (...) {
      log.error("response callback threw: " + current_exception_text());
    }
    done_ = nullptr;  // release what the callback captured now, not when this object goes
  }

 private:
  v1::ResponseCallback done_;
  std::atomic<bool> fired_{false};
};

}  // namespace mqkit::plugins::transports::remoting
