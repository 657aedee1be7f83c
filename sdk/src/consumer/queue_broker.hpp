// Which broker address serves a queue for a consumer: its broker's master, looked up in the
// instance's route cache, refreshing the topic's route once when the broker is not known yet.
// Any thread.
#pragma once

#include <string>

#include "mqkit/client/client_instance.hpp"

namespace mqkit::client {

// Unavailable naming the broker when no master address is known even after a route refresh.
Result<std::string> master_of(ClientInstance& instance, const MessageQueue& queue);

}  // namespace mqkit::client
