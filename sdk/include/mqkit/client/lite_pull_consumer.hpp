// LitePullConsumer: RocketMQ's DefaultLitePullConsumer. The application asks for messages with
// poll() instead of registering a listener; background pulls fill a bounded buffer per owned queue.
//
//   ConsumerConfig config;
//   config.group = "my_group";
//   config.client.namesrv_addresses = {"127.0.0.1:9876"};
//   LitePullConsumer consumer(config);
//   consumer.subscribe("TopicTest", "*");         // or, after start(): assign(queues)
//   if (Status s = consumer.start(); !s) ...
//   while (running) {
//     auto messages = consumer.poll(std::chrono::seconds(1));
//     if (!messages) ...;                          // not started, shut down
//     for (const auto& m : *messages) handle(m);
//   }                                              // offsets committed every auto_commit_interval
//   consumer.shutdown();
//
// Queues come either from subscribe() — the group's rebalance gives them, clustering (shared,
// offsets on the brokers) or broadcasting (every queue, offsets in a local file) — or from
// assign(), a fixed list and no rebalance. A consumer uses one or the other.
//
// poll() returns the messages of one pull of one queue (at most pull_batch_size), oldest first;
// the messages of one queue come out in queue order. A queue is not pulled while its buffer
// holds pull_threshold_for_queue messages / pull_threshold_size_for_queue bytes, nor any queue
// while pull_threshold_for_all messages wait for poll() in all.
//
// Offsets: each queue has a poll position, the offset after the last message poll() returned
// (seek() moves it). commit() writes the poll positions to the offset store (brokers or file);
// with auto_commit, poll() does so every auto_commit_interval, and shutdown() and a queue moving
// to another consumer do so too. Messages poll() returned but whose position was not committed
// come again after a crash or restart: delivery is at least once.
//
// With config.client.name_space (RocketMQ's namespace), topics and the group are named
// "<namespace>%<name>" on the wire; every method takes and gives topics and queues in the
// application's names (docs/sdk.md "Namespaces").
//
// Message trace (enable_msg_trace): each batch poll() returns is recorded as consumed — a
// SubBefore and a successful SubAfter, as RocketMQ's lite pull consumer writes them.
//
// Threads: every method is thread-safe, but the consumer is meant to be polled from one
// application thread (as RocketMQ's): with several threads polling, two batches of one queue may
// be handled concurrently and out of order. Pulls run on the consumer's own thread and the
// transport's; poll/seek/commit/pause/resume may be called while they run.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "mqkit/client/hooks.hpp"
#include "mqkit/client/client_instance.hpp"
#include "mqkit/client/consumer_config.hpp"
#include "mqkit/client/message_ext.hpp"
#include "mqkit/client/subscription.hpp"

namespace mqkit::client {

// RocketMQ's TopicMessageQueueChangeListener: `topic` and all its readable queues, after they
// changed.
using TopicMessageQueueChangeListener =
    std::function<void(const std::string& topic, const std::set<MessageQueue>& queues)>;

class LitePullConsumer {
 public:
  explicit LitePullConsumer(ConsumerConfig config);
  // Uses `instance` (tests, embedding): its ClientConfig replaces config.client, except the
  // allocator choice.
  LitePullConsumer(ConsumerConfig config, std::shared_ptr<ClientInstance> instance);
  ~LitePullConsumer();  // shutdown()
  LitePullConsumer(const LitePullConsumer&) = delete;
  LitePullConsumer& operator=(const LitePullConsumer&) = delete;

  // Subscribes `topic` with a TAG expression ("*", "TagA || TagB"), before or after start();
  // again for the same topic replaces the expression. InvalidArgument for a bad topic or
  // expression, or when the consumer uses assign().
  Status subscribe(const std::string& topic, const std::string& expression);
  // The same with a MessageSelector: by_tag, or by_sql (the brokers must enable_property_filter).
  Status subscribe(const std::string& topic, const MessageSelector& selector);
  // Consumes exactly `queues` (replacing an earlier assignment), before or after start().
  // Queues new to the consumer start at the group's committed offset, else per
  // consume_from_where; queues left out are committed (auto_commit) and dropped. InvalidArgument
  // for a bad queue, or when the consumer uses subscribe().
  Status assign(const std::vector<MessageQueue>& queues);
  // Stops consuming `topic`: its queues are no longer pulled, their buffered messages are
  // dropped and their poll positions committed (auto_commit) as when a queue moves away. A
  // subscribed topic leaves the subscriptions (the next heartbeat, sent now when running, no
  // longer carries it); assigned queues of `topic` leave the assignment. Nothing to do for a topic
  // neither subscribed nor assigned. InvalidArgument for a bad topic name.
  Status unsubscribe(const std::string& topic);

  // Calls `listener` with `topic`'s readable queues whenever a look-up on the name server (every
  // topic_metadata_check_interval while running) finds them changed. Not called with the queues
  // known when registered after start(), or at start() for a listener registered before: only for
  // changes since; a topic without a route then gets its first call once one is found. Again for
  // the same topic replaces the listener. Runs on the consumer's own check thread; it must not
  // call shutdown(). InvalidArgument for a bad topic or an empty listener; Unavailable after
  // shutdown().
  Status register_topic_message_queue_change_listener(const std::string& topic,
                                                      TopicMessageQueueChangeListener listener);
  // Before start(): both of a consume hook's calls run on each non-empty batch poll() returns,
  // as consumed (hooks.hpp; RocketMQ's registerConsumeMessageHook), after the message trace.
  Status register_consume_hook(std::shared_ptr<ConsumeHook> hook);

  // Validates the config, loads the allocator, opens the offset store (broadcasting: the local
  // file), registers the group and starts pulling. A consumer starts once: Unavailable when
  // started before; InvalidArgument when it neither subscribed nor was assigned queues.
  Status start();
  // Stops pulling, commits (auto_commit) and persists offsets, unregisters the group; a poll()
  // waiting returns. Idempotent.
  void shutdown();

  // Up to pull_batch_size messages of one queue; empty when none arrived within `timeout`
  // (config poll_timeout without one). Unavailable before start() and after shutdown().
  Result<std::vector<MessageExt>> poll();
  Result<std::vector<MessageExt>> poll(std::chrono::milliseconds timeout);

  // The next poll() of `queue` returns messages from `offset` on (messages already pulled are
  // dropped), and commit() writes `offset` until then. The queue must be owned now
  // (InvalidArgument otherwise: with subscribe() it may be moving in a rebalance) and `offset`
  // within the queue's [min, max] offsets on its broker.
  Status seek(const MessageQueue& queue, std::int64_t offset);
  Status seek_to_begin(const MessageQueue& queue);
  Status seek_to_end(const MessageQueue& queue);
  // To the first message stored at or after `timestamp_ms` (ms since the epoch); the end when none.
  Status seek_to_timestamp(const MessageQueue& queue, std::int64_t timestamp_ms);
  // The offset of the first message of `queue` stored at or after `timestamp_ms` (any queue).
  Result<std::int64_t> offset_for_timestamp(const MessageQueue& queue, std::int64_t timestamp_ms);

  // Writes every owned queue's poll position to the offset store now. The first failure is
  // returned after trying all.
  Status commit();
  // Writes the given offsets (next message to consume) of owned queues; InvalidArgument for a
  // queue not owned or a negative offset. Poll positions do not move.
  Status commit(const std::map<MessageQueue, std::int64_t>& offsets);
  // The group's committed offset of `queue` as the offset store holds it (brokers or file);
  // -1 when there is none.
  Result<std::int64_t> committed(const MessageQueue& queue);

  // poll() returns nothing of paused queues, and they are not pulled, until resumed. Queues not
  // owned yet may be paused (with subscribe(), before a rebalance gives them). InvalidArgument for
  // a queue of a topic neither subscribed nor assigned.
  Status pause(const std::vector<MessageQueue>& queues);
  Status resume(const std::vector<MessageQueue>& queues);

  // The readable queues of `topic`, as the name server answers now (the route is cached for the
  // consumer's other uses too). Unavailable before start().
  Result<std::vector<MessageQueue>> fetch_message_queues(const std::string& topic);
  // The queues this consumer owns now.
  std::set<MessageQueue> assignment() const;

  const ConsumerConfig& config() const noexcept;
  std::shared_ptr<ClientInstance> instance() const;

 private:
  class Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace mqkit::client
