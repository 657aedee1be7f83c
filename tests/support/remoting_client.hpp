// RemotingClient: synchronous RocketMQ requests from tests, through the real transport plugin.
#pragma once

#include <chrono>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "mqkit/plugin/v1/transport.hpp"

namespace mqkit::testing {

// A request with the given header fields.
plugin::v1::RemotingCommand make_request(std::int32_t code,
                                         std::initializer_list<std::pair<const char*, std::string>> fields);

class RemotingClient {
 public:
  RemotingClient();
  ~RemotingClient();
  // Sends `request` to `address` and waits for the response.
  plugin::v1::Result<plugin::v1::RemotingCommand> call(const std::string& address, plugin::v1::RemotingCommand request,
                                                       std::chrono::milliseconds timeout = std::chrono::seconds(5));
  // UPDATE_AND_CREATE_TOPIC with `queues` read and write queues; a failure fails the test.
  void create_topic(const std::string& broker, const std::string& topic, int queues = 4);
  // The bodies of the first messages (at most 32) of `topic` queue `queue_id`, pulled by
  // consumer group `group` from offset 0 with every record's CRC checked; empty when the pull
  // finds nothing (a record that does not decode fails the test).
  std::vector<std::string> pull_bodies(const std::string& broker, const std::string& topic, int queue_id,
                                       const std::string& group = "G");
  // The stored records (whole, as the broker sent them) of one pull of at most 32 messages from
  // `offset`; empty when the pull finds nothing.
  std::vector<std::vector<std::uint8_t>> pull_records(const std::string& broker, const std::string& topic,
                                                      int queue_id, std::int64_t offset, const std::string& group = "G");

 private:
  std::shared_ptr<plugin::v1::Transport> transport_;
};

}  // namespace mqkit::testing
