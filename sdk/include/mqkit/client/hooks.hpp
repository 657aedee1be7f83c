// Hooks: application code around every send attempt, every listener call and every transaction
// end — RocketMQ's SendMessageHook, ConsumeMessageHook and EndTransactionHook, on which tracing
// (OpenTracing, OpenTelemetry) and metrics integrations are built. The SDK's own message trace
// (enable_msg_trace) is one of them.
//
//   class Timing : public SendHook {
//     std::string_view name() const override { return "timing"; }
//     void before_send(Message& message) override { message.put_user_property("traceparent", ...); }
//     void after_send(const SendHookContext& sent) override { record(sent.took, sent.error); }
//   };
//   producer.register_send_hook(std::make_shared<Timing>());   // before start()
//
// When they run:
//   before_send    once per send call, before the message is validated and encoded, on the
//                  calling thread; user properties it sets travel with every attempt (RocketMQ
//                  runs it before each attempt). A batch calls it once per message.
//   after_send     after every attempt of a sync or async send: with the broker's answer, or with
//                  the error of an attempt that got none (RocketMQ's exception); on the sending
//                  thread or a transport thread. A one-way send calls it once, when the request was
//                  handed to the transport (with the error if it could not be).
//   before_consume before a push consumer's listener gets a batch, on the consume thread; a lite
//                  pull consumer runs both consume hooks on the messages poll() returns
//                  (RocketMQ's lite pull consumer does the same: what the application does next
//                  is not seen).
//   after_consume  after that listener call, with its outcome, on the same thread.
//   end_transaction
//                  after a transaction producer sent END_TRANSACTION: for its own half message
//                  once the local transaction ran, and when it answered a broker's check.
// Hooks must not block and must be thread-safe (calls for different queues run in parallel). A
// hook that throws is logged; the send or listener call goes on. Names are wire names: topics
// and groups include the client's namespace (ClientConfig::name_space).
#pragma once

#include <chrono>
#include <memory>
#include <span>
#include <string_view>

#include "mqkit/client/message.hpp"
#include "mqkit/client/message_ext.hpp"
#include "mqkit/client/send_result.hpp"
#include "mqkit/client/trace_data.hpp"
#include "mqkit/client/types.hpp"

namespace mqkit::client {

// What one send attempt was and how it ended (RocketMQ's SendMessageContext).
struct SendHookContext {
  std::string_view producer_group;
  std::string_view topic;
  std::string_view tags;
  std::string_view keys;
  std::size_t body_size = 0;  // as sent (compressed, or the encoded batch)
  bool batch = false;
  // Normal, a transaction's half message, or a delayed / timer message.
  trace::TraceMessageType message_type = trace::TraceMessageType::kNormal;
  MessageQueue queue;
  std::string_view broker_address;
  bool oneway = false;
  // The broker's answer; null when the attempt got none (see `error`) and for one-way sends.
  const SendResult* result = nullptr;
  Status error;
  std::chrono::steady_clock::time_point attempt_started{};
  std::chrono::microseconds took{0};
};

class SendHook {
 public:
  virtual ~SendHook() = default;
  virtual std::string_view name() const = 0;
  virtual void before_send(Message& /*message*/) {}
  virtual void after_send(const SendHookContext& /*attempt*/) {}
};

// One listener call (RocketMQ's ConsumeMessageContext). Each hook gets its own context.
struct ConsumeHookContext {
  std::string_view consumer_group;
  MessageQueue queue;
  std::span<const MessageExt> messages;
  // Set for after_consume: anything but a retry request counts as success.
  bool success = false;
  trace::ConsumeReturnType return_type = trace::ConsumeReturnType::kSuccess;
  std::chrono::milliseconds took{0};
  // What the hook keeps from before_consume for its after_consume (RocketMQ's mqTraceContext).
  std::shared_ptr<void> hook_state;
};

class ConsumeHook {
 public:
  virtual ~ConsumeHook() = default;
  virtual std::string_view name() const = 0;
  virtual void before_consume(ConsumeHookContext& /*call*/) {}
  virtual void after_consume(ConsumeHookContext& /*call*/) {}
};

// One END_TRANSACTION a transaction producer sent (RocketMQ's EndTransactionContext).
struct EndTransactionHookContext {
  std::string_view producer_group;
  const Message& message;  // as sent, or the half message a broker's check named
  std::string_view msg_id;
  std::string_view broker_address;
  std::string_view transaction_state;  // COMMIT_MESSAGE, ROLLBACK_MESSAGE or UNKNOW, as RocketMQ names them
  std::string_view transaction_id;
  bool from_transaction_check = false;
};

class EndTransactionHook {
 public:
  virtual ~EndTransactionHook() = default;
  virtual std::string_view name() const = 0;
  virtual void end_transaction(const EndTransactionHookContext& /*ended*/) {}
};

}  // namespace mqkit::client
