#include "mqkit/client/transaction_producer.hpp"

#include <exception>
#include <mutex>
#include <string>

#include "mqkit/client/message_id.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "namespaced_names.hpp"
#include "mqkit/client/task_pool.hpp"
#include "hook_calls.hpp"
#include "trace/message_tracer.hpp"

namespace mqkit::client {

namespace v1 = plugin::v1;
namespace property = v1::property;

namespace {

std::shared_ptr<spdlog::logger> log() { return kernel::logger("client"); }

using protocol::transaction::CheckTransactionStateHeader;
using protocol::transaction::EndTransactionHeader;
using protocol::transaction::Resolution;

// END_TRANSACTION's commitOrRollback of a local transaction's outcome.
Resolution resolution_of(LocalTransactionState state) {
  switch (state) {
    case LocalTransactionState::kCommit:
      return Resolution::kCommit;
    case LocalTransactionState::kRollback:
      return Resolution::kRollback;
    case LocalTransactionState::kUnknown:
      break;
  }
  return Resolution::kUnknown;
}

// Runs a listener call. One that throws leaves the transaction unknown, and `remark` carries the
// exception's text to the broker in END_TRANSACTION, as RocketMQ's producer does.
template <typename Call>
LocalTransactionState call_listener(std::string_view call_name, std::string_view message_id, std::string& remark,
                                    Call&& call) {
  try {
    return call();
  } catch (const std::exception& e) {
    remark = std::string(call_name) + " threw: " + e.what();
  } catch (...) {
    remark = std::string(call_name) + " threw something that is not a std::exception";
  }
  log()->warn("transaction of message {}: {}; its state stays unknown", message_id, remark);
  return LocalTransactionState::kUnknown;
}

}  // namespace

std::string_view to_string(LocalTransactionState state) noexcept {
  switch (state) {
    case LocalTransactionState::kCommit:
      return "COMMIT_MESSAGE";
    case LocalTransactionState::kRollback:
      return "ROLLBACK_MESSAGE";
    case LocalTransactionState::kUnknown:
      break;
  }
  return "UNKNOW";
}

// Threads: start/shutdown from the owner; send_in_transaction from any thread;
// check_transaction_state from transport worker threads (the client instance holds a reference
// to this object while it calls); answer_check on the check pool, which shutdown joins before the
// producer goes down.
class TransactionProducer::Impl final : public TransactionChecker {
 public:
  Impl(ProducerConfig config, std::shared_ptr<TransactionListener> listener, std::shared_ptr<ClientInstance> instance)
      : group_(protocol::wrap_namespace(config.client.name_space, config.group)),
        name_space_(config.client.name_space),
        producer_(std::move(config), std::move(instance)), listener_(std::move(listener)) {}

  Status start(std::shared_ptr<TransactionChecker> self);
  Status add_end_transaction_hook(std::shared_ptr<EndTransactionHook> hook) {
    std::lock_guard lock(lifecycle_mutex_);
    return add_hook(hooks_, std::move(hook), started_, "transaction producer " + group_);
  }
  void shutdown();
  Result<TransactionSendResult> send_in_transaction(Message message, const std::any& arg);
  void check_transaction_state(const std::string& broker_address, MessageExt half_message,
                               CheckTransactionStateHeader request) override;

  const std::string group_;  // with the namespace, as the producer names it once started
  const std::string name_space_;
  Producer producer_;

 private:
  // END_TRANSACTION for a half message this producer just sent.
  Status end_transaction(const Message& message, const SendResult& half, LocalTransactionState state,
                         const std::string& remark);
  // The end-transaction hooks (the message trace's EndTransaction record first).
  void after_end(const Message& message, std::string_view msg_id, std::string_view broker, LocalTransactionState state,
                 std::string_view transaction_id, bool from_check);
  void answer_check(const std::string& broker_address, const MessageExt& half_message,
                    const CheckTransactionStateHeader& request);
  void log_unended(std::string_view message_id, LocalTransactionState state, const Status& why) const;

  const std::shared_ptr<TransactionListener> listener_;
  std::mutex lifecycle_mutex_;
  EndTransactionHooks hooks_;  // the tracer first; fixed from start()
  bool started_ = false;  // guarded by lifecycle_mutex_
  // Made by start() before the instance can route checks here (set_transaction_checker orders
  // the two); kept until destruction, since a check the instance is handing over may still post.
  std::unique_ptr<TaskPool> check_pool_;
};

Status TransactionProducer::Impl::start(std::shared_ptr<TransactionChecker> self) {
  std::lock_guard lock(lifecycle_mutex_);
  if (!listener_) {
    return Status::invalid_argument("TransactionListener is null: transaction producer " + group_ +
                                    " needs one to execute and check local transactions");
  }
  MQKIT_RETURN_IF_ERROR(producer_.start());
  started_ = true;
  if (trace::MessageTracer* tracer = producer_.tracer()) {
    hooks_.insert(hooks_.begin(), unowned_hook<EndTransactionHook>(*tracer));
  }
  const ProducerConfig& config = producer_.config();
  check_pool_ = std::make_unique<TaskPool>("transaction-check", config.check_thread_pool_size,
                                           config.check_request_hold_max);
  if (Status taken = producer_.instance()->set_transaction_checker(group_, std::move(self)); !taken) {
    producer_.shutdown();
    return taken;
  }
  return Status::ok();
}

void TransactionProducer::Impl::shutdown() {
  std::lock_guard lock(lifecycle_mutex_);
  if (const auto instance = producer_.instance()) (void)instance->set_transaction_checker(group_, nullptr);
  if (check_pool_) check_pool_->join();  // the checks already waiting are answered
  producer_.shutdown();
}

Result<TransactionSendResult> TransactionProducer::Impl::send_in_transaction(Message message, const std::any& arg) {
  if (message.delay_time_level() > 0) {
    return Status::invalid_argument("a transactional message cannot have a delay level (it has " +
                                    std::to_string(message.delay_time_level()) +
                                    "): its half message stays invisible until the transaction ends");
  }
  message.set_property(std::string(property::kTransactionPrepared), "true");
  message.set_property(std::string(property::kProducerGroup), group_);
  // Given before sending, so the listener sees the message id of the transaction.
  if (message.unique_id().empty()) message.set_property(std::string(property::kUniqueKey), new_unique_id());
  MQKIT_ASSIGN_OR_RETURN(SendResult sent, producer_.send(message));

  TransactionSendResult result;
  static_cast<SendResult&>(result) = std::move(sent);
  std::string remark;
  if (result.status == SendStatus::kSendOk) {
    if (!result.transaction_id.empty()) {
      message.set_property(std::string(property::kTransactionId), result.transaction_id);
    }
    result.local_transaction_state =
        call_listener("execute_local_transaction", result.msg_id, remark,
                      [&] { return listener_->execute_local_transaction(message, arg); });
  } else {
    // Stored, but without the flush or replication asked for: RocketMQ rolls such a half message
    // back without running the local transaction.
    result.local_transaction_state = LocalTransactionState::kRollback;
  }
  if (Status ended = end_transaction(message, result, result.local_transaction_state, remark); !ended) {
    log_unended(result.msg_id, result.local_transaction_state, ended);
  }
  return result;
}

Status TransactionProducer::Impl::end_transaction(const Message& message, const SendResult& half,
                                                  LocalTransactionState state, const std::string& remark) {
  const auto instance = producer_.instance();
  if (!instance) return Status::unavailable("producer " + group_ + " shut down meanwhile");
  // The commit log offset of the half message is in the broker's offset message id.
  auto stored_at = v1::parse_offset_message_id(half.offset_msg_id);
  if (!stored_at) {
    return Status::corruption("the broker answered the half message with offset message id '" + half.offset_msg_id +
                              "': " + stored_at.status().message());
  }
  const std::string broker = instance->find_broker_master(half.message_queue.broker_name);
  if (broker.empty()) return Status::unavailable("no master address of broker " + half.message_queue.broker_name);
  const EndTransactionHeader request{.producer_group = group_,
                                      .tran_state_table_offset = half.queue_offset,
                                      .commit_log_offset = stored_at->commit_offset,
                                      .resolution = resolution_of(state),
                                      .from_transaction_check = false,
                                      .msg_id = half.msg_id,
                                      .transaction_id = half.transaction_id};
  after_end(message, half.msg_id, broker, state, half.transaction_id, false);
  return instance->api().end_transaction_oneway(broker, request, remark);
}

void TransactionProducer::Impl::after_end(const Message& message, std::string_view msg_id, std::string_view broker,
                                          LocalTransactionState state, std::string_view transaction_id,
                                          bool from_check) {
  if (hooks_.empty()) return;
  run_end_transaction(hooks_, {.producer_group = group_,
                               .message = message,
                               .msg_id = msg_id,
                               .broker_address = broker,
                               .transaction_state = to_string(state),
                               .transaction_id = transaction_id,
                               .from_transaction_check = from_check});
}

void TransactionProducer::Impl::check_transaction_state(const std::string& broker_address, MessageExt half_message,
                                                        CheckTransactionStateHeader request) {
  const std::string message_id = half_message.msg_id();
  strip_namespace(name_space_, half_message);  // the listener sees the topic it sent to
  const bool queued = check_pool_->post(
      [this, broker_address, half_message = std::move(half_message), request = std::move(request)] {
        answer_check(broker_address, half_message, request);
      });
  if (!queued) {
    log()->warn("{}: transaction check of message {} from {} dropped: the check queue is full ({} waiting, "
                "check_request_hold_max) or the producer is shutting down; the broker asks again at its next "
                "check",
                group_, message_id, broker_address, producer_.config().check_request_hold_max);
  }
}

void TransactionProducer::Impl::answer_check(const std::string& broker_address, const MessageExt& half_message,
                                             const CheckTransactionStateHeader& request) {
  const std::string message_id = half_message.msg_id();  // UNIQ_KEY, else the offset id (as RocketMQ)
  std::string remark;
  const LocalTransactionState state = call_listener("check_local_transaction", message_id, remark, [&] {
    return listener_->check_local_transaction(half_message);
  });
  const auto instance = producer_.instance();
  if (instance) after_end(half_message, message_id, broker_address, state, request.transaction_id, true);
  const Status sent =
      instance ? instance->api().end_transaction_oneway(
                     broker_address,
                     EndTransactionHeader{.producer_group = group_,
                                           .tran_state_table_offset = request.tran_state_table_offset,
                                           .commit_log_offset = request.commit_log_offset,
                                           .resolution = resolution_of(state),
                                           .from_transaction_check = true,
                                           .msg_id = message_id,
                                           .transaction_id = request.transaction_id},
                     remark)
               : Status::unavailable("producer " + group_ + " shut down meanwhile");
  if (!sent) log_unended(message_id, state, sent);
}

void TransactionProducer::Impl::log_unended(std::string_view message_id, LocalTransactionState state,
                                            const Status& why) const {
  log()->warn("{}: the local transaction of message {} ended {}, but END_TRANSACTION did not go out: {}; the broker "
              "will check the transaction",
              group_, message_id, to_string(state), why.to_string());
}

// ---- TransactionProducer -------------------------------------------------------------------

TransactionProducer::TransactionProducer(ProducerConfig config, std::shared_ptr<TransactionListener> listener)
    : TransactionProducer(std::move(config), std::move(listener), nullptr) {}

TransactionProducer::TransactionProducer(ProducerConfig config, std::shared_ptr<TransactionListener> listener,
                                         std::shared_ptr<ClientInstance> instance)
    : impl_(std::make_shared<Impl>(std::move(config), std::move(listener), std::move(instance))) {}

TransactionProducer::~TransactionProducer() { impl_->shutdown(); }

Status TransactionProducer::start() { return impl_->start(impl_); }

Status TransactionProducer::register_end_transaction_hook(std::shared_ptr<EndTransactionHook> hook) {
  return impl_->add_end_transaction_hook(std::move(hook));
}

void TransactionProducer::shutdown() { impl_->shutdown(); }

Result<TransactionSendResult> TransactionProducer::send_message_in_transaction(Message message, std::any arg) {
  return impl_->send_in_transaction(std::move(message), arg);
}

Producer& TransactionProducer::producer() noexcept { return impl_->producer_; }

const ProducerConfig& TransactionProducer::config() const noexcept { return impl_->producer_.config(); }

std::shared_ptr<ClientInstance> TransactionProducer::instance() const { return impl_->producer_.instance(); }

}  // namespace mqkit::client
