// RemotingClient: synchronous RocketMQ requests from tests, through the real transport plugin.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "mqkit/plugin/v1/transport.hpp"

namespace mqkit::testing {

class RemotingClient {
 public:
  RemotingClient();
  ~RemotingClient();
  // Sends `request` to `address` and waits for the response.
  plugin::v1::Result<plugin::v1::RemotingCommand> call(const std::string& address, plugin::v1::RemotingCommand request,
                                                       std::chrono::milliseconds timeout = std::chrono::seconds(5));

 private:
  std::shared_ptr<plugin::v1::Transport> transport_;
};

}  // namespace mqkit::testing
