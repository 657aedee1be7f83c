// TransactionProducer: RocketMQ's TransactionMQProducer — a message that is delivered only if a
// local transaction (a database write, say) commits (rocketmq-facts §5.6).
//
//   class Orders : public TransactionListener {
//     LocalTransactionState execute_local_transaction(const Message& m, const std::any& arg) override {
//       return db.insert(order_of(m)) ? LocalTransactionState::kCommit : LocalTransactionState::kRollback;
//     }
//     LocalTransactionState check_local_transaction(const MessageExt& m) override {
//       return db.has(order_of(m)) ? LocalTransactionState::kCommit : LocalTransactionState::kUnknown;
//     }
//   };
//   TransactionProducer producer(config, std::make_shared<Orders>());
//   if (auto s = producer.start(); !s) ...;
//   auto result = producer.send_message_in_transaction(Message("Orders", "TagA", "..."));
//
// send_message_in_transaction sends a half message (TRAN_MSG=true, PGROUP=the group, sysFlag
// PREPARED), which the broker stores invisibly; once it is stored, execute_local_transaction runs
// on the calling thread, and its answer goes to that broker one-way as END_TRANSACTION: COMMIT
// makes the message visible to consumers, ROLLBACK drops it, UNKNOWN leaves it to the broker's
// check. A half message whose transaction stays unknown (or whose END_TRANSACTION was lost) is
// checked: the broker sends CHECK_TRANSACTION_STATE to a producer of the group, which runs
// check_local_transaction on its check threads and answers with END_TRANSACTION again.
//
// Threads: every method is thread-safe. execute_local_transaction runs on the sending thread;
// check_local_transaction on the producer's check threads (check_thread_pool_size; at most
// check_request_hold_max checks wait, later ones are dropped and asked again by the broker). A
// listener that throws answers UNKNOWN, with the exception's text as the END_TRANSACTION remark.
#pragma once

#include <any>
#include <cstdint>
#include <memory>
#include <string_view>

#include "mqkit/client/client_instance.hpp"
#include "mqkit/client/message.hpp"
#include "mqkit/client/message_ext.hpp"
#include "mqkit/client/producer.hpp"
#include "mqkit/client/producer_config.hpp"
#include "mqkit/client/send_result.hpp"

namespace mqkit::client {

enum class LocalTransactionState : std::uint8_t {
  kCommit,    // deliver the message
  kRollback,  // drop it
  kUnknown,   // not decided yet: the broker asks check_local_transaction later
};

// RocketMQ's names: "COMMIT_MESSAGE", "ROLLBACK_MESSAGE", "UNKNOW".
std::string_view to_string(LocalTransactionState state) noexcept;

// The application's side of a transaction (RocketMQ's TransactionListener). Must be thread-safe:
// sends and checks call it from several threads at once.
class TransactionListener {
 public:
  virtual ~TransactionListener() = default;
  // Runs the local transaction of `message` (as sent: its unique_id() is the transaction's
  // message id) once the broker stored the half message. `arg` is what the caller passed to
  // send_message_in_transaction.
  virtual LocalTransactionState execute_local_transaction(const Message& message, const std::any& arg) = 0;
  // How the local transaction of `message` (the stored half message) ended, when a broker asks.
  virtual LocalTransactionState check_local_transaction(const MessageExt& message) = 0;
};

// The send result of the half message and the local transaction's outcome.
struct TransactionSendResult : SendResult {
  LocalTransactionState local_transaction_state = LocalTransactionState::kUnknown;
};

class TransactionProducer {
 public:
  // Uses the process-wide ClientInstance of config.client.resolved().client_id().
  TransactionProducer(ProducerConfig config, std::shared_ptr<TransactionListener> listener);
  // Uses `instance` (tests, embedding; see Producer).
  TransactionProducer(ProducerConfig config, std::shared_ptr<TransactionListener> listener,
                      std::shared_ptr<ClientInstance> instance);
  ~TransactionProducer();  // shutdown()
  TransactionProducer(const TransactionProducer&) = delete;
  TransactionProducer& operator=(const TransactionProducer&) = delete;

  // Starts the producer (Producer::start) and the check threads, and takes the brokers' checks
  // of the group. InvalidArgument without a listener. Once only.
  Status start();
  // Before start(): runs after every END_TRANSACTION this producer sends (hooks.hpp; RocketMQ's
  // registerEndTransactionHook), after the message trace when enable_msg_trace is on. Send
  // hooks go on producer().register_send_hook.
  Status register_end_transaction_hook(std::shared_ptr<EndTransactionHook> hook);
  // Stops taking checks, answers the checks already waiting, then shuts the producer down.
  // Idempotent.
  void shutdown();

  // Sends `message` as a half message and ends its transaction as execute_local_transaction
  // decides (see above). A failed send is returned as its Status, without running the listener.
  // A send the broker stored without SEND_OK (FLUSH_DISK_TIMEOUT, FLUSH_SLAVE_TIMEOUT,
  // SLAVE_NOT_AVAILABLE) is rolled back without running the listener, as RocketMQ does.
  // InvalidArgument for a message with a delay level (a half message cannot be scheduled; Java's
  // producer drops the level silently instead). There is no batch form: each half message needs
  // its own END_TRANSACTION (Producer::send_batch refuses TRAN_MSG messages).
  Result<TransactionSendResult> send_message_in_transaction(Message message, std::any arg = {});

  // The underlying producer, for plain sends with the same group.
  Producer& producer() noexcept;
  const ProducerConfig& config() const noexcept;
  // nullptr before start() and after shutdown().
  std::shared_ptr<ClientInstance> instance() const;

 private:
  class Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace mqkit::client
