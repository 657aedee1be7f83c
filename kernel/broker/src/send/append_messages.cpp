#include "append_messages.hpp"

#include <memory>
#include <string>

namespace mqkit::broker {

namespace v1 = plugin::v1;

namespace {

// What the store reads from: the messages, their encoded properties and the views over both.
// Kept alive by the append callback, since a store may finish the append on another thread.
struct PendingAppend {
  std::vector<OutgoingMessage> messages;
  std::vector<std::string> properties;
  std::vector<v1::MessageToAppend> views;
};

}  // namespace

void append_messages(BrokerContext& context, std::vector<OutgoingMessage> messages, bool wait_for_flush,
                     AppendedCallback done) {
  std::vector<std::string> properties;
  properties.reserve(messages.size());
  for (const OutgoingMessage& m : messages) properties.push_back(v1::encode_properties(m.properties));
  append_encoded_messages(context, std::move(messages), std::move(properties), wait_for_flush, std::move(done));
}

void append_encoded_messages(BrokerContext& context, std::vector<OutgoingMessage> messages,
                             std::vector<std::string> properties, bool wait_for_flush, AppendedCallback done) {
  for (const auto& p : properties) {
    // Checked here rather than left to the store so that every store answers alike.
    if (p.size() > v1::kMaxPropertiesLength) {
      done(v1::Status::invalid_argument("message properties are " + std::to_string(p.size()) +
                                        " bytes, more than the limit of 32767"));
      return;
    }
  }
  auto pending = std::make_shared<PendingAppend>();
  pending->messages = std::move(messages);
  pending->properties = std::move(properties);
  pending->views.reserve(pending->messages.size());
  for (std::size_t i = 0; i < pending->messages.size(); ++i) {
    const OutgoingMessage& m = pending->messages[i];
    v1::MessageToAppend view;
    view.topic = m.topic;
    view.queue_id = m.queue_id;
    view.flag = m.flag;
    view.sys_flag = m.sys_flag;
    view.born_timestamp = m.born_timestamp;
    view.born_host = m.born_host;
    view.store_host = context.store_host;
    view.reconsume_times = m.reconsume_times;
    view.body = m.body.bytes;
    view.properties = pending->properties[i];
    pending->views.push_back(view);
  }
  v1::AppendOptions options;
  options.wait_for_flush = wait_for_flush;
  kernel::DispatchPipeline* dispatch = context.dispatch;
  context.store->append(pending->views, options,
                        [pending, dispatch, done = std::move(done)](v1::Result<v1::AppendResult> result) {
                          if (!result) {
                            done(result.status());
                            return;
                          }
                          if (dispatch != nullptr) dispatch->notify_appended();
                          AppendedMessages appended{*result, {}};
                          appended.commit_offsets.reserve(pending->views.size());
                          std::int64_t offset = result->commit_offset;
                          for (const auto& view : pending->views) {
                            appended.commit_offsets.push_back(offset);
                            offset += v1::record_size(view);
                          }
                          done(std::move(appended));
                        });
}

}  // namespace mqkit::broker
