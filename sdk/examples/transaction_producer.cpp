// Transactional messages: each message is delivered only if its local transaction commits.
//   example_transaction_producer [namesrv host:port[;host:port]] [seconds to stay for checks]
//
// Ten orders: order i commits when i % 3 == 0, rolls back when i % 3 == 1, and is left unknown
// when i % 3 == 2 — the broker then asks check_local_transaction later (after its
// transactionTimeOut, at its next transactionCheckInterval), which commits it. Stay long enough
// for that (the broker's default interval is 60 s) to see the unknown ones committed.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "mqkit/client/transaction_producer.hpp"

using namespace mqkit::client;

// Plays the application's database: what each order's local transaction did.
class OrderTransactions : public TransactionListener {
 public:
  LocalTransactionState execute_local_transaction(const Message& message, const std::any& arg) override {
    const int order = std::any_cast<int>(arg);
    const LocalTransactionState state = order % 3 == 0   ? LocalTransactionState::kCommit
                                        : order % 3 == 1 ? LocalTransactionState::kRollback
                                                         : LocalTransactionState::kUnknown;
    std::lock_guard lock(mutex_);
    // An unknown one is found committed when the broker checks.
    outcomes_[std::string(message.unique_id())] =
        state == LocalTransactionState::kUnknown ? LocalTransactionState::kCommit : state;
    return state;
  }

  LocalTransactionState check_local_transaction(const MessageExt& message) override {
    std::lock_guard lock(mutex_);
    const auto it = outcomes_.find(std::string(message.unique_id()));
    const LocalTransactionState state = it == outcomes_.end() ? LocalTransactionState::kUnknown : it->second;
    std::printf("broker checked %s: %s\n", message.msg_id().c_str(), std::string(to_string(state)).c_str());
    return state;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, LocalTransactionState> outcomes_;
};

int main(int argc, char** argv) {
  ProducerConfig config;
  config.group = "please_rename_unique_transaction_group";
  if (argc > 1) config.client.namesrv_addresses = split_namesrv_addresses(argv[1]);
  const int stay_seconds = argc > 2 ? std::atoi(argv[2]) : 0;

  TransactionProducer producer(config, std::make_shared<OrderTransactions>());
  if (auto started = producer.start(); !started) {
    std::fprintf(stderr, "start failed: %s\n", started.to_string().c_str());
    return 1;
  }

  for (int order = 0; order < 10; ++order) {
    Message message("TopicTest", "TagTx", "order " + std::to_string(order));
    message.set_keys("order-" + std::to_string(order));
    auto result = producer.send_message_in_transaction(std::move(message), order);
    if (!result) {
      std::fprintf(stderr, "send failed: %s\n", result.status().to_string().c_str());
      continue;
    }
    std::printf("%s msgId=%s local transaction %s\n", std::string(to_string(result->status)).c_str(),
                result->msg_id.c_str(), std::string(to_string(result->local_transaction_state)).c_str());
  }

  // The broker's checks of the unknown orders arrive while the producer runs.
  std::this_thread::sleep_for(std::chrono::seconds(stay_seconds));
  producer.shutdown();
  return 0;
}
