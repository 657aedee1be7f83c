// RequestDispatcher: serves the requests brokers send to a client over the connections the
// client opened (NOTIFY_CONSUMER_IDS_CHANGED, RESET_CONSUMER_CLIENT_OFFSET, ...), by request
// code, to processors the client's parts register. Unknown codes are answered
// REQUEST_CODE_NOT_SUPPORTED unless the request is one-way.
//
// Threads: on_request runs on transport worker threads; registration may happen at any time.
// Processors must not block for long (they hold a transport worker).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <shared_mutex>

#include "mqkit/client/request_processor.hpp"
#include "mqkit/plugin/v1/transport.hpp"

namespace mqkit::client {

class RequestDispatcher final : public plugin::v1::RequestHandler {
 public:
  // Replaces any processor of `code`.
  void register_processor(std::int32_t code, RequestProcessor processor);
  void unregister_processor(std::int32_t code);

  void on_request(const std::shared_ptr<plugin::v1::Channel>& channel,
                  plugin::v1::RemotingCommand request) noexcept override;

 private:
  mutable std::shared_mutex mutex_;
  std::map<std::int32_t, std::shared_ptr<const RequestProcessor>> processors_;
};

}  // namespace mqkit::client
