// Topic setup before a run: each topic is created (UPDATE_AND_CREATE_TOPIC) with the wanted
// number of read and write queues on every master broker the name server knows, and the run
// waits until the name server's route shows them.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "mqkit/client/client_api.hpp"

namespace mqkit::bench {

client::Status create_topics(client::ClientApi& api, const std::vector<std::string>& topics, int queues,
                             std::chrono::milliseconds route_timeout = std::chrono::seconds(15));

// "name" for one topic, "name-0" .. "name-<n-1>" for more.
std::vector<std::string> topic_names(const std::string& name, int count);

}  // namespace mqkit::bench
