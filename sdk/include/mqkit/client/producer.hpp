// Producer: sends messages to a RocketMQ-compatible cluster (RocketMQ's DefaultMQProducer).
//
//   ProducerConfig config;
//   config.group = "please_rename_unique_group_name";
//   config.client.namesrv_addresses = {"127.0.0.1:9876"};
//   Producer producer(config);
//   if (auto s = producer.start(); !s) ...;
//   auto result = producer.send(Message("TopicTest", "TagA", "Hello"));
//
// Sends are sync (send), async (send_async with a callback or a future) or one-way, of one
// message or a batch (send_batch), to a queue chosen by the configured default selector (round
// robin avoiding unavailable brokers), by an application selector with an argument (ordered
// messages: the same order id always reaches the same queue), or to a given queue.
//
// Request-reply (request_reply.hpp): request() sends a message and waits for the reply a
// responder sends with create_reply_message; request_async() calls back with it.
//
// With config.enable_msg_trace, every send the broker answered is recorded in the trace topic
// (RocketMQ's message trace; docs/sdk.md "Message trace").
//
// With config.client.name_space (RocketMQ's namespace), topics and the group are named
// "<namespace>%<name>" on the wire; results, queues and replies come back in the application's
// names (docs/sdk.md "Namespaces").
//
// With config.auto_batch, async sends of single messages to one queue travel together as one
// SEND_BATCH_MESSAGE, each callback with its own result (produce_accumulator.hpp, docs/sdk.md).
//
// Threads: every method is thread-safe; send() blocks the calling thread for at most the send
// timeout. Async callbacks run on a transport I/O thread, the client's async thread or the
// auto-batch timer thread (or, for a send that fails before anything went out, the calling
// thread); they must not block, and must not wait for another send of this producer. At most max_in_flight_async_messages /
// _bytes async sends await their response; send_async waits for room up to the send timeout
// and then fails with ResourceExhausted. shutdown() waits for every async send to call back.
#pragma once

#include <chrono>
#include <cstddef>
#include <future>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "mqkit/client/client_api.hpp"
#include "mqkit/client/client_instance.hpp"
#include "mqkit/client/hooks.hpp"
#include "mqkit/client/message.hpp"
#include "mqkit/client/producer_config.hpp"
#include "mqkit/client/request_reply.hpp"
#include "mqkit/client/send_result.hpp"
#include "mqkit/plugin/v1/selector.hpp"

namespace mqkit::client {

using plugin::v1::QueueSelector;
using plugin::v1::SelectArgument;

namespace trace {
class MessageTracer;
}

struct SendOptions {
  // Send to exactly this queue (one attempt).
  std::optional<MessageQueue> queue{};
  // Choose the queue with this selector and argument (one attempt: with a hash selector an
  // ordered message must not move to another queue). nullptr: the producer's default selector,
  // with retries on other brokers.
  std::shared_ptr<QueueSelector> selector{};
  SelectArgument argument{};
  // Instead of send_msg_timeout.
  std::optional<std::chrono::milliseconds> timeout{};
};

class Producer {
 public:
  // Uses the process-wide ClientInstance of config.client.resolved().client_id().
  explicit Producer(ProducerConfig config);
  // Uses `instance` (its ClientConfig replaces config.client's connection settings).
  Producer(ProducerConfig config, std::shared_ptr<ClientInstance> instance);
  ~Producer();  // shutdown()
  Producer(const Producer&) = delete;
  Producer& operator=(const Producer&) = delete;

  // Loads the selector and fault strategy plugins, registers the group with the client instance
  // (AlreadyExists when it has it) and starts the instance's periodic tasks. Once only.
  Status start();
  // Before start(): runs before every send call and after every attempt (hooks.hpp; RocketMQ's
  // registerSendMessageHook), after the message trace when enable_msg_trace is on.
  Status register_send_hook(std::shared_ptr<SendHook> hook);
  // Stops accepting sends, waits for the async ones to call back, unregisters from the brokers.
  // Idempotent.
  void shutdown();

  Result<SendResult> send(Message message, const SendOptions& options = {});
  // One SEND_BATCH_MESSAGE: same topic, no delay level; result ids are comma-joined.
  Result<SendResult> send_batch(std::vector<Message> messages, const SendOptions& options = {});
  // An error returned here means `callback` will not be called.
  Status send_async(Message message, SendCallback callback, const SendOptions& options = {});
  std::future<Result<SendResult>> send_async(Message message, const SendOptions& options = {});
  Status send_batch_async(std::vector<Message> messages, SendCallback callback, const SendOptions& options = {});
  // Queued for the broker; nothing comes back. One attempt.
  Status send_oneway(Message message, const SendOptions& options = {});

  // Sends `message` as a request (CORRELATION_ID, REPLY_TO_CLIENT, TTL = `timeout`) and waits for
  // its reply; `timeout` bounds the send and the wait together (options.timeout must stay unset).
  // Timeout "request timeout, no reply message after N ms ..." when no reply came in time; the
  // send's error when the request could not be sent. Blocks the calling thread.
  Result<MessageExt> request(Message message, std::chrono::milliseconds timeout, const SendOptions& options = {});
  // As request(), calling back with the reply or the error (on a transport thread, the client's
  // periodic thread for a timeout, or the calling thread; it must not block). A timeout is
  // noticed within a second after it passed. An error returned here means `callback` will not be
  // called.
  Status request_async(Message message, RequestCallback callback, std::chrono::milliseconds timeout,
                       const SendOptions& options = {});

  // Cancels a timer message before its delivery (RocketMQ 5.3's recallMessage): `recall_handle`
  // is its SendResult's. The broker named in the handle must have recall_message_enable on;
  // InvalidArgument for a handle that is not one. Returns the recalled message's id.
  Result<std::string> recall_message(std::string_view topic, std::string_view recall_handle);

  // A selector plugin by name ("hash", "random", "SelectMessageQueueByHash", ...).
  Result<std::shared_ptr<QueueSelector>> make_selector(const PluginChoice& choice) const;
  // The queues sends to `topic` choose from.
  Result<std::vector<MessageQueue>> fetch_publish_message_queues(std::string_view topic);

  const ProducerConfig& config() const noexcept;
  // nullptr before start() and after shutdown().
  std::shared_ptr<ClientInstance> instance() const;
  std::size_t async_in_flight() const;
  // The SDK's own: the message trace hooks once started with enable_msg_trace (after shutdown they
  // drop what they get), else nullptr.
  trace::MessageTracer* tracer() const noexcept;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mqkit::client
