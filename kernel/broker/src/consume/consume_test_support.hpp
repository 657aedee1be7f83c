// Helpers for the consume-path processor tests: messages into the harness store, requests
// through a processor, records out of responses.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/broker/request_processor.hpp"
#include "mqkit/broker/testing/broker_harness.hpp"
#include "mqkit/broker/testing/fake_channel.hpp"
#include "mqkit/plugin/v1/message_record.hpp"

namespace mqkit::broker::testing {

struct TestMessage {
  std::string topic;
  std::int32_t queue_id = 0;
  std::string body;
  std::string tags;        // TAGS property when not empty
  std::string keys;        // KEYS property when not empty
  std::string unique_key;  // UNIQ_KEY property when not empty
  plugin::v1::Properties user_properties{};  // after those
};

// Appends one message to the context's store (not yet dispatched; see wait_dispatched()).
plugin::v1::AppendResult append(BrokerContext& context, const TestMessage& message);

// A CLUSTERING, CONSUME_PASSIVELY (push) group's heartbeat data subscribing every one of
// `topics` with "*".
protocol::ConsumerData consumer_data(std::string group, const std::vector<std::string>& topics);

// Creates or replaces a read-write topic with `queues` queues.
void create_topic(BrokerContext& context, const std::string& topic, std::int32_t queues);

// A request with the given code and extFields.
RemotingCommand make_request(std::int32_t code, std::initializer_list<std::pair<std::string, std::string>> fields);

// Runs `request` through `processor` on `channel` and returns the answer (fails the test and
// returns an empty command when none comes within a few seconds).
RemotingCommand call(RequestProcessor& processor, const std::shared_ptr<FakeChannel>& channel, RemotingCommand request);

// The records of a pull or query response, decoded.
std::vector<plugin::v1::RecordView> records_of(const RemotingCommand& response);
std::string body_of(const plugin::v1::RecordView& record);

// An extField as an integer (fails the test when missing).
std::int64_t ext_int(const RemotingCommand& command, std::string_view name);

// A fixture: one `Processor` over a BrokerHarness, answering on one FakeChannel (id 1).
template <typename Processor>
class ProcessorTest : public ::testing::Test {
 protected:
  BrokerContext& context() { return harness_.context(); }
  RemotingCommand call(RemotingCommand request) { return testing::call(processor_, channel_, std::move(request)); }

  BrokerHarness harness_;
  Processor processor_{harness_.context()};
  std::shared_ptr<FakeChannel> channel_ = std::make_shared<FakeChannel>();
};

}  // namespace mqkit::broker::testing
