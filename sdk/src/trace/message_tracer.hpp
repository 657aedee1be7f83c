// MessageTracer: the message trace of one traced producer or consumer (enable_msg_trace) —
// RocketMQ 4.x's SendMessageTraceHookImpl, ConsumeMessageTraceHookImpl and EndTransactionTraceHookImpl
// in front of an AsyncTraceDispatcher and its inner trace producer.
//
// It is the traced client's first send or consume hook (mqkit/client/hooks.hpp); the records it
// builds the way RocketMQ's hooks do go to the dispatcher, which never blocks the caller:
//   after_send         a Pub per send attempt the broker answered (sync, async, batch; not one-way,
//                      which gets no answer; not an attempt that failed), unless the broker said
//                      TRACE_ON=false or the message goes to the trace topic itself
//   before_consume     a SubBefore of the messages about to reach a listener (those without
//                      TRACE_ON=false)
//   after_consume      the SubAfter of that SubBefore: success, cost per message, ConsumeReturnType;
//                      a lite pull consumer runs both on what poll() returns, the SubAfter at once
//                      with success and ConsumeReturnType SUCCESS
//   end_transaction    an EndTransaction per END_TRANSACTION a transaction producer sends
// Records name topics and the traced group without their namespace (ClientConfig::name_space), as
// RocketMQ's hooks do since 4.5.1; the trace producer has none, so the trace topic is never wrapped.
// Trace messages go to the trace topic through a producer of group
// "_INNER_TRACE_PRODUCER-<group>-<PRODUCE|CONSUME>-<n>" in its own client instance, each indexed
// under its records' message ids and keys.
//
// Threads: the hooks from any thread. shutdown() once the traced client stopped using the hooks.
#pragma once

#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "mqkit/client/client_config.hpp"
#include "mqkit/client/hooks.hpp"
#include "mqkit/client/message_ext.hpp"
#include "mqkit/client/send_result.hpp"
#include "mqkit/client/trace_data.hpp"
#include "trace_dispatcher.hpp"

namespace mqkit::client {

class Producer;

namespace trace {

// TraceDispatcher.Type: what the traced client is, in its trace producer's group name.
enum class TracedRole : std::uint8_t { kProduce, kConsume };

// The ConsumeReturnType of a listener call, as RocketMQ's consume services classify it.
ConsumeReturnType consume_return_type(bool threw, bool asked_to_retry, std::chrono::milliseconds took,
                                      std::chrono::milliseconds consume_timeout);

// "_INNER_TRACE_PRODUCER-<group>-<PRODUCE|CONSUME>-<n>", n counting the trace producers of the process.
std::string trace_producer_group(std::string_view traced_group, TracedRole role);

class MessageTracer final : public SendHook, public ConsumeHook, public EndTransactionHook {
 public:
  // Starts the inner trace producer for `traced_group` with `client`'s name servers and
  // credentials. Null, after a warning, when it cannot start: the client then works untraced, as a
  // RocketMQ client whose trace hook failed to start.
  static std::unique_ptr<MessageTracer> start(const ClientConfig& client, std::string traced_group, TracedRole role,
                                              std::string trace_topic);
  // Trace messages go to `sink` (tests).
  MessageTracer(std::string traced_group, std::string trace_topic, TraceMessageSink sink,
                DispatcherLimits limits = {});
  ~MessageTracer();  // shutdown()
  MessageTracer(const MessageTracer&) = delete;
  MessageTracer& operator=(const MessageTracer&) = delete;

  // Hands every queued record over, then stops the inner producer (which waits, bounded by its
  // send timeout, for the trace messages in flight). Idempotent.
  void shutdown();

  std::string_view name() const override { return "message trace"; }
  void after_send(const SendHookContext& attempt) override;
  void before_consume(ConsumeHookContext& call) override;
  void after_consume(ConsumeHookContext& call) override;
  void end_transaction(const EndTransactionHookContext& ended) override;

  const std::string& trace_topic() const noexcept { return trace_topic_; }
  const TraceDispatcher& dispatcher() const noexcept { return *dispatcher_; }

 private:
  MessageTracer(std::string traced_group, std::string trace_topic);

  const std::string group_;
  const std::string trace_topic_;
  std::unique_ptr<Producer> producer_;  // null with a test sink
  std::unique_ptr<TraceDispatcher> dispatcher_;  // uses producer_: stopped first
};

}  // namespace trace
}  // namespace mqkit::client
