// Helpers for the send-path tests: send requests built as producers build them, a processor over
// the harness store, and stored records read back by queue.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "mqkit/broker/send/end_transaction_processor.hpp"
#include "mqkit/broker/send/send_message_processor.hpp"
#include "mqkit/broker/send/transaction_service.hpp"
#include "mqkit/broker/testing/broker_harness.hpp"
#include "mqkit/broker/testing/fake_channel.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/codes.hpp"

namespace mqkit::broker::testing {

// SendMessageRequestHeader fields; build() uses the long keys for SEND_MESSAGE and
// SEND_REPLY_MESSAGE, the one-letter keys for the other send codes.
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

// `request` without the extField `key`.
plugin::v1::RemotingCommand without_field(plugin::v1::RemotingCommand request, std::string_view key);

// A stored record and the bytes it points into.
struct StoredRecord {
  plugin::v1::StoredSlice slice;
  plugin::v1::RecordView view;

  std::string body() const { return {view.body.begin(), view.body.end()}; }
  std::optional<std::string> property(std::string_view name) const;
};

// A store that forwards to another, with appends a test can make fail, report a late sync
// flush, or answer from another thread (as a store waiting for its flush thread does).
class InterposedStore final : public plugin::v1::MessageStore {
 public:
  explicit InterposedStore(std::shared_ptr<plugin::v1::MessageStore> inner) : inner_(std::move(inner)) {}
  ~InterposedStore() override;

  void fail_appends_with(plugin::v1::Status status);  // OK = stop failing
  void set_flush_times_out(bool late);
  void set_answer_later(bool later);

  plugin::v1::Result<plugin::v1::RecoveryReport> start() noexcept override { return inner_->start(); }
  void shutdown() noexcept override { inner_->shutdown(); }
  void append(std::span<const plugin::v1::MessageToAppend> batch, const plugin::v1::AppendOptions& options,
              plugin::v1::AppendCallback done) noexcept override;
  plugin::v1::Status append_replicated(std::int64_t offset, std::span<const std::uint8_t> records) noexcept override {
    return inner_->append_replicated(offset, records);
  }
  plugin::v1::Result<plugin::v1::ReadResult> read(const plugin::v1::ReadRequest& request) noexcept override {
    return inner_->read(request);
  }
  std::int64_t min_offset(std::string_view topic, std::int32_t queue_id) noexcept override {
    return inner_->min_offset(topic, queue_id);
  }
  std::int64_t max_offset(std::string_view topic, std::int32_t queue_id) noexcept override {
    return inner_->max_offset(topic, queue_id);
  }
  plugin::v1::Result<std::int64_t> commit_offset_of(std::string_view topic, std::int32_t queue_id,
                                                    std::int64_t queue_offset) noexcept override {
    return inner_->commit_offset_of(topic, queue_id, queue_offset);
  }
  plugin::v1::Result<plugin::v1::StoredSlice> read_at(std::int64_t commit_offset) noexcept override {
    return inner_->read_at(commit_offset);
  }
  plugin::v1::Result<std::int64_t> offset_by_time(std::string_view topic, std::int32_t queue_id, std::int64_t ms,
                                                  plugin::v1::TimeBoundary boundary) noexcept override {
    return inner_->offset_by_time(topic, queue_id, ms, boundary);
  }
  plugin::v1::Result<std::int64_t> earliest_message_time(std::string_view topic,
                                                         std::int32_t queue_id) noexcept override {
    return inner_->earliest_message_time(topic, queue_id);
  }
  plugin::v1::Result<plugin::v1::QueryResult> query_by_key(std::string_view topic, std::string_view key,
                                                           std::int32_t max_count, std::int64_t begin_ms,
                                                           std::int64_t end_ms) noexcept override {
    return inner_->query_by_key(topic, key, max_count, begin_ms, end_ms);
  }
  plugin::v1::Status delete_topic(std::string_view topic) noexcept override { return inner_->delete_topic(topic); }
  plugin::v1::Status flush() noexcept override { return inner_->flush(); }
  plugin::v1::Result<plugin::v1::DispatchChunk> read_for_dispatch(std::int64_t from,
                                                                  std::int64_t max_bytes) noexcept override {
    return inner_->read_for_dispatch(from, max_bytes);
  }
  std::span<plugin::v1::Dispatcher* const> dispatchers() noexcept override { return inner_->dispatchers(); }
  void on_dispatched(std::int64_t next_offset) noexcept override { inner_->on_dispatched(next_offset); }
  plugin::v1::Status save_metadata(std::string_view name, std::string_view content) noexcept override {
    return inner_->save_metadata(name, content);
  }
  plugin::v1::Result<std::optional<std::string>> load_metadata(std::string_view name) noexcept override {
    return inner_->load_metadata(name);
  }
  plugin::v1::StoreStats stats() noexcept override { return inner_->stats(); }

 private:
  std::shared_ptr<plugin::v1::MessageStore> inner_;
  std::mutex mutex_;
  plugin::v1::Status failure_;
  bool flush_times_out_ = false;
  bool answer_later_ = false;
  std::vector<std::thread> answering_;
};

// A SendMessageProcessor and an EndTransactionProcessor over a BrokerHarness, answering on one
// FakeChannel; the harness context has a TransactionService (loaded, its check thread not
// started: tests run check passes themselves).
class SendFixture {
 public:
  explicit SendFixture(const std::string& broker_toml = "");
  ~SendFixture();

  BrokerContext& context() { return harness_.context(); }
  BrokerHarness& harness() { return harness_; }
  TransactionService& transactions() { return transactions_; }
  // Puts an InterposedStore in front of the harness store (the dispatch pipeline keeps reading
  // the harness store directly).
  InterposedStore& interpose();

  // Runs `request` through the processor of its code and returns its answer (an empty command
  // with code -1 when none came within 5 s, or at once for a one-way request).
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
  TransactionService transactions_{harness_.context()};
  EndTransactionProcessor end_transaction_{harness_.context()};
  std::shared_ptr<InterposedStore> interposed_;
};

// Polls `condition` every few milliseconds until it holds or `timeout` passes.
bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds timeout = std::chrono::seconds(5));

}  // namespace mqkit::broker::testing
