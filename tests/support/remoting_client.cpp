#include "remoting_client.hpp"

#include <future>

#include "plugin_fixture.hpp"

namespace mqkit::testing {

using plugin::v1::RemotingCommand;
using plugin::v1::Result;

RemotingClient::RemotingClient() : transport_(load_plugin<plugin::v1::Transport>("remoting")) {}

RemotingClient::~RemotingClient() {
  if (transport_) transport_->shutdown();
}

Result<RemotingCommand> RemotingClient::call(const std::string& address, RemotingCommand request,
                                             std::chrono::milliseconds timeout) {
  if (!transport_) return plugin::v1::Status::unavailable("the remoting transport plugin did not load");
  auto promise = std::make_shared<std::promise<Result<RemotingCommand>>>();
  auto future = promise->get_future();
  transport_->invoke(address, std::move(request), timeout,
                     [promise](Result<RemotingCommand> response) { promise->set_value(std::move(response)); });
  return future.get();
}

}  // namespace mqkit::testing
