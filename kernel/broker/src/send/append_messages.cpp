#include "append_messages.hpp"

#include <future>
#include <memory>
#include <string>

#include "../ha/ha_master.hpp"
#include "mqkit/plugin/v1/message_record.hpp"

namespace mqkit::broker {

namespace v1 = plugin::v1;

namespace {

// What the store reads from: the messages (or a batch's common fields and its members), their
// encoded properties and the views over them. Kept alive by the append callback, since a store
// may finish the append on another thread.
struct PendingAppend {
  std::vector<OutgoingMessage> messages;
  std::vector<std::string> properties;
  BatchMembers batch;
  std::vector<v1::MessageToAppend> views;
};

// RocketMQ stores nothing on a slave (DefaultMessageStore.checkStoreStatus) and answers
// SERVICE_NOT_AVAILABLE naming the slave among the causes.
constexpr const char* kSlaveRefusal =
    "service not available now: this broker is a slave (broker_role SLAVE); send to its master";

// What a SYNC_MASTER send waits for after the store answered: a slave's acknowledgement.
struct ReplicaWait {
  ReplicaAcks* replicas = nullptr;  // null: nothing to wait for
  std::int64_t max_gap = 0;
  std::int64_t timeout_ms = 0;
};

ReplicaWait replica_wait_of(const BrokerContext& context, bool wait_for_flush) {
  if (context.replicas == nullptr || context.config == nullptr || !wait_for_flush ||
      context.config->broker_role != BrokerRole::kSyncMaster) {
    return {};
  }
  return {context.replicas, context.config->ha_max_gap_not_in_sync, context.config->ha_slave_timeout_ms};
}

// Hands `pending->views` to the store; `done` gets each record's commit offset.
void store_views(BrokerContext& context, std::shared_ptr<PendingAppend> pending, bool wait_for_flush,
                 AppendedCallback done) {
  if (context.config != nullptr && context.config->is_slave()) {
    done(v1::Status::unavailable(kSlaveRefusal));
    return;
  }
  for (const auto& view : pending->views) {
    // Checked here rather than left to the store so that every store answers alike.
    if (view.properties.size() > v1::kMaxPropertiesLength) {
      done(v1::Status::invalid_argument("message properties are " + std::to_string(view.properties.size()) +
                                        " bytes, more than the limit of 32767"));
      return;
    }
  }
  v1::AppendOptions options;
  options.wait_for_flush = wait_for_flush;
  kernel::DispatchPipeline* dispatch = context.dispatch;
  ha::HaMaster* ha_master = context.ha_master;
  const ReplicaWait replica = replica_wait_of(context, wait_for_flush);
  const auto& views = pending->views;
  context.store->append(views, options,
                        [pending = std::move(pending), dispatch, ha_master, replica, done = std::move(done)](
                            v1::Result<v1::AppendResult> result) {
                          if (!result) {
                            done(result.status());
                            return;
                          }
                          if (dispatch != nullptr) dispatch->notify_appended();
                          if (ha_master != nullptr) ha_master->notify_appended();
                          AppendedMessages appended{*result, {}};
                          appended.commit_offsets.reserve(pending->views.size());
                          std::int64_t offset = result->commit_offset;
                          for (const auto& view : pending->views) {
                            appended.commit_offsets.push_back(offset);
                            offset += v1::record_size(view);
                          }
                          if (replica.replicas == nullptr) return done(std::move(appended));
                          const std::int64_t end = result->commit_offset + result->bytes;
                          replica.replicas->wait(
                              end, replica.max_gap, ReplicaAcks::steady_ms() + replica.timeout_ms,
                              [appended = std::move(appended), done](ReplicaOutcome outcome) mutable {
                                appended.replica = outcome;
                                done(std::move(appended));
                              });
                        });
}

}  // namespace

v1::MessageToAppend view_of(const OutgoingMessage& m, const v1::HostAddress& store_host) {
  v1::MessageToAppend view;
  view.topic = m.topic;
  view.queue_id = m.queue_id;
  view.flag = m.flag;
  view.sys_flag = m.sys_flag;
  view.born_timestamp = m.born_timestamp;
  view.born_host = m.born_host;
  view.store_host = store_host;
  view.reconsume_times = m.reconsume_times;
  view.prepared_transaction_offset = m.prepared_transaction_offset;
  view.body = m.body.bytes;
  return view;
}

void append_messages(BrokerContext& context, std::vector<OutgoingMessage> messages, bool wait_for_flush,
                     AppendedCallback done) {
  auto pending = std::make_shared<PendingAppend>();
  pending->messages = std::move(messages);
  pending->properties.reserve(pending->messages.size());
  pending->views.reserve(pending->messages.size());
  for (const OutgoingMessage& m : pending->messages) {
    v1::MessageToAppend& view = pending->views.emplace_back(view_of(m, context.store_host));
    view.properties = pending->properties.emplace_back(v1::encode_properties(m.properties));
  }
  store_views(context, std::move(pending), wait_for_flush, std::move(done));
}

void append_batch(BrokerContext& context, OutgoingMessage common, BatchMembers batch, bool wait_for_flush,
                  AppendedCallback done) {
  auto pending = std::make_shared<PendingAppend>();
  pending->messages.push_back(std::move(common));
  pending->batch = std::move(batch);
  const v1::MessageToAppend shared = view_of(pending->messages.front(), context.store_host);
  const std::string_view properties = pending->batch.properties;
  pending->views.reserve(pending->batch.members.size());
  std::size_t begin = 0;
  for (const BatchMembers::Member& member : pending->batch.members) {
    v1::MessageToAppend& view = pending->views.emplace_back(shared);
    view.flag = member.flag;
    view.body = member.body;
    view.properties = properties.substr(begin, member.properties_end - begin);
    begin = member.properties_end;
  }
  store_views(context, std::move(pending), wait_for_flush, std::move(done));
}

v1::Result<AppendedMessages> append_and_wait(BrokerContext& context, OutgoingMessage message,
                                             std::chrono::milliseconds timeout) {
  // Shared with the callback: the store may answer after this thread gave up waiting.
  auto answer = std::make_shared<std::promise<v1::Result<AppendedMessages>>>();
  auto future = answer->get_future();
  append_message(context, std::move(message), false,
                 [answer](v1::Result<AppendedMessages> appended) { answer->set_value(std::move(appended)); });
  if (future.wait_for(timeout) != std::future_status::ready) {
    return v1::Status::timeout("the store did not answer an append within " + std::to_string(timeout.count()) +
                               " ms");
  }
  return future.get();
}

v1::Result<StoredRecordAt> read_record_at(BrokerContext& context, std::int64_t commit_offset) {
  MQKIT_ASSIGN_OR_RETURN(v1::StoredSlice slice, context.store->read_at(commit_offset));
  MQKIT_ASSIGN_OR_RETURN(v1::RecordView record, v1::decode_record(slice.bytes));
  if (record.commit_offset != commit_offset) {
    return v1::Status::not_found("no record starts at commit offset " + std::to_string(commit_offset));
  }
  return StoredRecordAt{std::move(slice), record};
}

bool read_offset_needs_correction(v1::ReadStatus status) {
  switch (status) {
    case v1::ReadStatus::kOffsetTooSmall:
    case v1::ReadStatus::kOffsetOverflowBadly:
    case v1::ReadStatus::kMessageWasRemoving:
    case v1::ReadStatus::kOffsetFoundNull:
      return true;
    default:
      return false;
  }
}

}  // namespace mqkit::broker
