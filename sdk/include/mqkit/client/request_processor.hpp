// RequestProcessor: serves one request code a broker sends to a client over a connection the
// client opened (NOTIFY_CONSUMER_IDS_CHANGED, RESET_CONSUMER_CLIENT_OFFSET, ...). Runs on a
// transport worker thread and must not block for long; answers with channel->send(response)
// unless the request is one-way.
#pragma once

#include <functional>
#include <memory>

#include "mqkit/plugin/v1/transport.hpp"

namespace mqkit::client {

using RequestProcessor =
    std::function<void(const std::shared_ptr<plugin::v1::Channel>& channel, plugin::v1::RemotingCommand request)>;

}  // namespace mqkit::client
