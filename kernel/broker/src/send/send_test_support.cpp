#include "send_test_support.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace mqkit::broker::testing {

namespace v1 = plugin::v1;

v1::RemotingCommand SendRequest::build() const {
  const bool short_keys =
      code != protocol::request_code::kSendMessage && code != protocol::request_code::kSendReplyMessage;
  auto request = v1::RemotingCommand::request(code);
  const auto put = [&](std::string_view v1_name, std::string_view v2_name, std::string value) {
    request.ext_fields.set(std::string(short_keys ? v2_name : v1_name), std::move(value));
  };
  put("producerGroup", "a", "PG");
  put("topic", "b", topic);
  put("defaultTopic", "c", "TBW102");
  put("defaultTopicQueueNums", "d", std::to_string(default_topic_queue_nums));
  put("queueId", "e", std::to_string(queue_id));
  put("sysFlag", "f", std::to_string(sys_flag));
  put("bornTimestamp", "g", std::to_string(born_timestamp));
  put("flag", "h", std::to_string(flag));
  put("properties", "i", v1::encode_properties(properties));
  put("reconsumeTimes", "j", std::to_string(reconsume_times));
  put("unitMode", "k", "false");
  if (max_reconsume_times) put("maxReconsumeTimes", "l", std::to_string(*max_reconsume_times));
  if (code == protocol::request_code::kSendBatchMessage) put("batch", "m", "true");
  request.body.assign(body.begin(), body.end());
  return request;
}

v1::RemotingCommand without_field(v1::RemotingCommand request, std::string_view key) {
  v1::ExtFields kept;
  for (const auto& [name, value] : request.ext_fields) {
    if (name != key) kept.set(name, value);
  }
  request.ext_fields = std::move(kept);
  return request;
}

std::optional<std::string> StoredRecord::property(std::string_view name) const {
  auto value = v1::find_property(view.properties, name);
  return value ? std::optional<std::string>(*value) : std::nullopt;
}

SendFixture::SendFixture(const std::string& broker_toml) : harness_(broker_toml) {
  harness_.context().transactions = &transactions_;
  transactions_.start(false);
}

v1::RemotingCommand SendFixture::call(v1::RemotingCommand request) {
  const std::size_t before = channel_->sent().size();
  const bool oneway = request.is_oneway();
  Responder responder(channel_, request);
  if (request.code == protocol::request_code::kEndTransaction) {
    end_transaction_.process(std::move(request), responder);
  } else {
    processor_.process(std::move(request), responder);
  }
  if (oneway) {
    EXPECT_EQ(channel_->sent().size(), before) << "a one-way request was answered";
    v1::RemotingCommand none;
    none.code = -1;
    return none;
  }
  if (!channel_->wait_for(before + 1)) {
    ADD_FAILURE() << "no answer within 5 s";
    v1::RemotingCommand none;
    none.code = -1;
    return none;
  }
  return channel_->last();
}

std::optional<StoredRecord> SendFixture::read(const std::string& topic, std::int32_t queue_id, std::int64_t offset) {
  harness_.wait_dispatched();
  v1::ReadRequest request;
  request.topic = topic;
  request.queue_id = queue_id;
  request.offset = offset;
  request.max_count = 1;
  auto result = context().store->read(request);
  if (!result || result->status != v1::ReadStatus::kFound || result->records.empty()) return std::nullopt;
  auto view = v1::decode_record(result->records[0].bytes);
  if (!view) return std::nullopt;
  return StoredRecord{result->records[0], *view};
}

std::optional<StoredRecord> SendFixture::read_at(std::int64_t commit_offset) {
  auto slice = context().store->read_at(commit_offset);
  if (!slice) return std::nullopt;
  auto view = v1::decode_record(slice->bytes);
  if (!view) return std::nullopt;
  return StoredRecord{*slice, *view};
}

InterposedStore::~InterposedStore() {
  for (auto& t : answering_) t.join();
}

void InterposedStore::fail_appends_with(v1::Status status) {
  std::lock_guard lock(mutex_);
  failure_ = std::move(status);
}

void InterposedStore::set_flush_times_out(bool late) {
  std::lock_guard lock(mutex_);
  flush_times_out_ = late;
}

void InterposedStore::set_answer_later(bool later) {
  std::lock_guard lock(mutex_);
  answer_later_ = later;
}

void InterposedStore::append(std::span<const v1::MessageToAppend> batch, const v1::AppendOptions& options,
                             v1::AppendCallback done) noexcept {
  std::lock_guard lock(mutex_);
  if (!failure_.is_ok()) {
    done(failure_);
    return;
  }
  v1::Result<v1::AppendResult> result = v1::Status::internal("no answer");
  inner_->append(batch, options, [&](v1::Result<v1::AppendResult> r) { result = std::move(r); });
  if (result && flush_times_out_) result->flush_timed_out = true;
  if (!answer_later_) {
    done(std::move(result));
    return;
  }
  answering_.emplace_back([done = std::move(done), result = std::move(result)]() mutable { done(std::move(result)); });
}

SendFixture::~SendFixture() = default;

InterposedStore& SendFixture::interpose() {
  if (!interposed_) {
    interposed_ = std::make_shared<InterposedStore>(context().store);
    context().store = interposed_;
  }
  return *interposed_;
}

bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

}  // namespace mqkit::broker::testing
