#include "message_tracer.hpp"

#include <atomic>

#include "mqkit/client/message_id.hpp"
#include "mqkit/client/producer.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/kernel/wall_clock.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/message_trace.hpp"
#include "mqkit/protocol/namespace.hpp"

namespace mqkit::client::trace {

namespace {

using std::chrono::milliseconds;

// The inner trace producer's settings (AsyncTraceDispatcher): 5 s sends of at most 128,000 bytes.
constexpr milliseconds kTraceSendTimeout{5000};
constexpr std::size_t kTraceMaxMessageSize = 128'000;

std::shared_ptr<spdlog::logger> log() { return kernel::logger("client"); }

std::string region_of(const Message& message) {
  const auto region = message.property(protocol::property::kMsgRegion);
  return region && !region->empty() ? std::string(*region) : std::string(kDefaultRegionId);
}

std::int32_t millis_of(milliseconds duration) { return static_cast<std::int32_t>(duration.count()); }

}  // namespace

ConsumeReturnType consume_return_type(bool threw, bool asked_to_retry, milliseconds took,
                                      milliseconds consume_timeout) {
  if (threw) return ConsumeReturnType::kException;
  if (took >= consume_timeout) return ConsumeReturnType::kTimeOut;
  return asked_to_retry ? ConsumeReturnType::kFailed : ConsumeReturnType::kSuccess;
}

std::string trace_producer_group(std::string_view traced_group, TracedRole role) {
  static std::atomic<int> counter{0};
  return std::string(kTraceProducerGroupPrefix) + "-" + std::string(traced_group) + "-" +
         (role == TracedRole::kProduce ? "PRODUCE" : "CONSUME") + "-" + std::to_string(++counter);
}

MessageTracer::MessageTracer(std::string traced_group, std::string trace_topic)
    : group_(protocol::without_any_namespace(traced_group)),
      trace_topic_(trace_topic.empty() ? std::string(kDefaultTraceTopic) : std::move(trace_topic)) {}

MessageTracer::MessageTracer(std::string traced_group, std::string trace_topic, TraceMessageSink sink,
                             DispatcherLimits limits)
    : MessageTracer(std::move(traced_group), std::move(trace_topic)) {
  dispatcher_ = std::make_unique<TraceDispatcher>(std::move(sink), limits);
}

std::unique_ptr<MessageTracer> MessageTracer::start(const ClientConfig& client, std::string traced_group,
                                                    TracedRole role, std::string trace_topic) {
  std::unique_ptr<MessageTracer> tracer(new MessageTracer(std::move(traced_group), std::move(trace_topic)));
  ProducerConfig config;
  config.client = client;
  // As RocketMQ's trace producer: the trace topic is shared by every namespace, never wrapped.
  config.client.name_space.clear();
  std::string namesrv;
  for (const auto& address : client.namesrv_addresses) namesrv += (namesrv.empty() ? "" : ";") + address;
  config.client.instance_name = std::string(kTraceInstanceName) + "_" + namesrv;
  config.group = trace_producer_group(tracer->group_, role);
  config.send_msg_timeout = kTraceSendTimeout;
  config.max_message_size = kTraceMaxMessageSize;
  config.batch_max_bytes = kTraceMaxMessageSize;  // must not exceed max_message_size
  // enable_msg_trace stays off: trace messages are not traced.
  auto producer = std::make_unique<Producer>(config);
  if (Status started = producer->start(); !started) {
    log()->warn("message trace of {}: the trace producer {} did not start: {}; {} runs without message trace",
                tracer->group_, config.group, started.to_string(), tracer->group_);
    return nullptr;
  }
  Producer* sender = producer.get();
  tracer->producer_ = std::move(producer);
  tracer->dispatcher_ = std::make_unique<TraceDispatcher>(
      [sender, topic = tracer->trace_topic_](std::string body, std::vector<std::string> keys) {
        Message message(topic, std::move(body));
        message.set_keys(keys);
        const Status queued = sender->send_async(std::move(message), [topic](Result<SendResult> sent) {
          if (!sent) log()->warn("message trace: a trace message to {} was not sent: {}", topic, sent.status().to_string());
        });
        if (!queued) log()->warn("message trace: a trace message to {} was not sent: {}", topic, queued.to_string());
      });
  log()->info("message trace of {} on: records go to {} through {}", tracer->group_, tracer->trace_topic_,
              config.group);
  return tracer;
}

MessageTracer::~MessageTracer() { shutdown(); }

void MessageTracer::shutdown() {
  if (dispatcher_) dispatcher_->shutdown();
  if (producer_) producer_->shutdown();
}

void MessageTracer::after_send(const SendHookContext& attempt) {
  // As RocketMQ's trace hook: only an answer the broker gave is traced.
  if (attempt.result == nullptr || attempt.topic.starts_with(trace_topic_) || !attempt.result->trace_on) return;
  const SendResult& result = *attempt.result;
  const auto took = std::chrono::duration_cast<milliseconds>(attempt.took);
  TraceContext context{.type = TraceType::kPub,
                       .timestamp_ms = kernel::wall_clock_ms() - took.count(),
                       .region_id = result.region_id.empty() ? std::string(kDefaultRegionId) : result.region_id,
                       .group = group_,
                       .cost_ms = millis_of(took),
                       .success = result.status == SendStatus::kSendOk};
  TraceBean& bean = context.beans.emplace_back();
  bean.topic = protocol::without_any_namespace(attempt.topic);
  bean.msg_id = result.msg_id;
  bean.offset_msg_id = result.offset_msg_id;
  bean.tags = std::string(attempt.tags);
  bean.keys = std::string(attempt.keys);
  bean.store_host = std::string(attempt.broker_address);
  bean.body_length = static_cast<std::int32_t>(attempt.body_size);
  bean.msg_type = attempt.message_type;
  dispatcher_->append(std::move(context));
}

void MessageTracer::end_transaction(const EndTransactionHookContext& ended) {
  if (ended.message.topic().starts_with(trace_topic_)) return;
  TraceContext context{.type = TraceType::kEndTransaction,
                       .timestamp_ms = kernel::wall_clock_ms(),
                       .region_id = region_of(ended.message),
                       .group = group_};
  TraceBean& bean = context.beans.emplace_back();
  bean.topic = protocol::without_any_namespace(ended.message.topic());
  bean.msg_id = std::string(ended.msg_id);
  bean.tags = std::string(ended.message.tags());
  bean.keys = std::string(ended.message.keys());
  bean.store_host = std::string(ended.broker_address);
  bean.msg_type = TraceMessageType::kTransactionCommit;
  bean.transaction_id = std::string(ended.transaction_id);
  bean.transaction_state = std::string(ended.transaction_state);
  bean.from_transaction_check = ended.from_transaction_check;
  dispatcher_->append(std::move(context));
}

void MessageTracer::before_consume(ConsumeHookContext& call) {
  TraceContext context{.type = TraceType::kSubBefore, .timestamp_ms = kernel::wall_clock_ms(), .group = group_};
  context.request_id = new_unique_id();
  for (const MessageExt& message : call.messages) {
    if (message.property(protocol::property::kTraceSwitch) == "false") continue;
    TraceBean& bean = context.beans.emplace_back();
    bean.topic = protocol::without_any_namespace(message.topic());
    bean.msg_id = message.msg_id();
    bean.tags = std::string(message.tags());
    bean.keys = std::string(message.keys());
    bean.body_length = message.store_size;
    bean.retry_times = message.reconsume_times;
    context.region_id = region_of(message);
  }
  if (context.beans.empty()) return;
  dispatcher_->append(context);
  call.hook_state = std::make_shared<TraceContext>(std::move(context));
}

void MessageTracer::after_consume(ConsumeHookContext& call) {
  const auto before = std::static_pointer_cast<const TraceContext>(call.hook_state);
  if (!before || call.messages.empty()) return;
  const auto count = static_cast<milliseconds::rep>(call.messages.size());
  TraceContext context{.type = TraceType::kSubAfter,
                       .timestamp_ms = kernel::wall_clock_ms(),
                       .region_id = before->region_id,
                       .group = group_,
                       .cost_ms = millis_of(call.took / count),
                       .success = call.success,
                       .request_id = before->request_id,
                       .context_code = static_cast<std::int32_t>(call.return_type),
                       .beans = before->beans};
  dispatcher_->append(std::move(context));
}

}  // namespace mqkit::client::trace
