// Helpers for the send-path tests: send requests built as producers build them, a processor over
// the harness store, and stored records read back by queue.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "mqkit/broker/send/send_message_processor.hpp"
#include "mqkit/broker/testing/broker_harness.hpp"
#include "mqkit/broker/testing/fake_channel.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/codes.hpp"

namespace mqkit::broker::testing {

// SendMessageRequestHeader fields; build() uses the long keys for SEND_MESSAGE and the
// one-letter keys for SEND_MESSAGE_V2 and SEND_BATCH_MESSAGE.
struct SendRequest {
  std::int32_t code = protocol::request_code::kSendMessageV2;
  std::string topic = "T";
  std::int32_t queue_id = 0;
  std::string body = "hello";
  plugin::v1::Properties properties{{"TAGS", "TagA"}, {"KEYS", "k1"}, {"UNIQ_KEY", "AC11000100002A9F0000000000000001"}};
  std::int32_t flag = 0;
  std::int32_t sys_flag = 0;
  std::int32_t default_topic_queue_nums = 4;
  std::int64_t born_timestamp = 1'700'000'000'000;
  std::int32_t reconsume_times = 0;
  std::optional<std::int32_t> max_reconsume_times;

  plugin::v1::RemotingCommand build() const;
};

// A stored record and the bytes it points into.
struct StoredRecord {
  plugin::v1::StoredSlice slice;
  plugin::v1::RecordView view;

  std::string body() const { return {view.body.begin(), view.body.end()}; }
  std::optional<std::string> property(std::string_view name) const;
};

// A SendMessageProcessor over a BrokerHarness, answering on one FakeChannel.
class SendFixture {
 public:
  explicit SendFixture(const std::string& broker_toml = "");

  BrokerContext& context() { return harness_.context(); }
  BrokerHarness& harness() { return harness_; }

  // Runs `request` through the processor and returns its answer (an empty command with code -1
  // when none came within 5 s).
  plugin::v1::RemotingCommand call(plugin::v1::RemotingCommand request);
  plugin::v1::RemotingCommand send(const SendRequest& request) { return call(request.build()); }
  // The record at `offset` of a queue once dispatched; nullopt when there is none.
  std::optional<StoredRecord> read(const std::string& topic, std::int32_t queue_id, std::int64_t offset);
  // The record at a commit log offset.
  std::optional<StoredRecord> read_at(std::int64_t commit_offset);

 private:
  BrokerHarness harness_;
  std::shared_ptr<FakeChannel> channel_ = std::make_shared<FakeChannel>(1, "127.0.0.1:50000");
  SendMessageProcessor processor_{harness_.context()};
};

// Polls `condition` every few milliseconds until it holds or `timeout` passes.
bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds timeout = std::chrono::seconds(5));

}  // namespace mqkit::broker::testing
