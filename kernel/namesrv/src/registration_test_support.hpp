// A broker's registration as the name server tests build them: topics with 4 read and write
// queues, the given data version.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mqkit/namesrv/route_info_manager.hpp"

namespace mqkit::namesrv::testing {

inline BrokerRegistration registration(std::string cluster, std::string name, std::string addr, std::int64_t id,
                                       const std::vector<std::string>& topics, std::int64_t version = 1) {
  BrokerRegistration r;
  r.cluster_name = std::move(cluster);
  r.broker_name = std::move(name);
  r.broker_addr = std::move(addr);
  r.broker_id = id;
  r.topics.data_version = {1000, version, 0};
  r.full_topic_table = true;  // as an mqkit broker's periodic registration
  for (const auto& t : topics) {
    protocol::TopicConfig c;
    c.topic_name = t;
    c.read_queue_nums = c.write_queue_nums = 4;
    r.topics.topic_config_table[t] = c;
  }
  return r;
}

}  // namespace mqkit::namesrv::testing
