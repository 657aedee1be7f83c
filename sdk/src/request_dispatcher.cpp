#include "request_dispatcher.hpp"

#include <exception>
#include <mutex>
#include <string>

#include "mqkit/kernel/logging.hpp"
#include "mqkit/protocol/codes.hpp"

namespace mqkit::client {

using plugin::v1::RemotingCommand;

void RequestDispatcher::register_processor(std::int32_t code, RequestProcessor processor) {
  std::unique_lock lock(mutex_);
  processors_[code] = std::make_shared<const RequestProcessor>(std::move(processor));
}

void RequestDispatcher::unregister_processor(std::int32_t code) {
  std::unique_lock lock(mutex_);
  processors_.erase(code);
}

void RequestDispatcher::on_request(const std::shared_ptr<plugin::v1::Channel>& channel,
                                   RemotingCommand request) noexcept {
  std::shared_ptr<const RequestProcessor> processor;
  {
    std::shared_lock lock(mutex_);
    if (auto it = processors_.find(request.code); it != processors_.end()) processor = it->second;
  }
  const std::int32_t code = request.code;
  try {
    if (processor) return (*processor)(channel, std::move(request));
    if (request.is_oneway()) return;
    (void)channel->send(RemotingCommand::response_to(request, protocol::response_code::kRequestCodeNotSupported,
                                                     " request type " + std::to_string(code) + " not supported"));
  } catch (const std::exception& e) {
    kernel::logger("client")->error("processing request {} from {} failed: {}", code, channel->remote_address(),
                                    e.what());
  } catch (...) {
    kernel::logger("client")->error("processing request {} from {} failed", code, channel->remote_address());
  }
}

}  // namespace mqkit::client
