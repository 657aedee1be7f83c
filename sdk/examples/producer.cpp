// Quick start: send ten messages synchronously, then ten asynchronously; a send hook times every
// attempt (where a tracing or metrics integration would plug in, docs/sdk.md "Hooks").
//   example_producer [namesrv host:port[;host:port]]   (or set $NAMESRV_ADDR)
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <string>
#include <vector>

#include "mqkit/client/producer.hpp"

using namespace mqkit::client;

// Hooks run on sending and transport threads: keep them quick and thread-safe.
class SendTiming : public SendHook {
 public:
  std::string_view name() const override { return "send-timing"; }
  void after_send(const SendHookContext& attempt) override {
    ++attempts_;
    if (!attempt.error.is_ok()) ++failed_;
    total_us_ += attempt.took.count();
  }
  void print() const {
    const long attempts = attempts_.load();
    std::printf("send hook: %ld attempts, %ld failed, %.0f us on average\n", attempts, failed_.load(),
                attempts > 0 ? static_cast<double>(total_us_.load()) / static_cast<double>(attempts) : 0.0);
  }

 private:
  std::atomic<long> attempts_{0};
  std::atomic<long> failed_{0};
  std::atomic<long> total_us_{0};
};

int main(int argc, char** argv) {
  ProducerConfig config;
  config.group = "please_rename_unique_group_name";
  if (argc > 1) config.client.namesrv_addresses = split_namesrv_addresses(argv[1]);

  Producer producer(config);
  auto timing = std::make_shared<SendTiming>();
  (void)producer.register_send_hook(timing);  // before start()
  if (auto started = producer.start(); !started) {
    std::fprintf(stderr, "start failed: %s\n", started.to_string().c_str());
    return 1;
  }

  for (int i = 0; i < 10; ++i) {
    Message message("TopicTest", "TagA", "Hello RocketMQ " + std::to_string(i));
    message.set_keys("key-" + std::to_string(i));
    auto result = producer.send(std::move(message));
    if (!result) {
      std::fprintf(stderr, "send failed: %s\n", result.status().to_string().c_str());
      continue;
    }
    std::printf("%s msgId=%s queue=%s:%d offset=%lld\n", std::string(to_string(result->status)).c_str(),
                result->msg_id.c_str(), result->message_queue.broker_name.c_str(), result->message_queue.queue_id,
                static_cast<long long>(result->queue_offset));
  }

  // Async: the callback runs on a client thread and must not block.
  std::vector<std::future<Result<SendResult>>> pending;
  for (int i = 0; i < 10; ++i) pending.push_back(producer.send_async(Message("TopicTest", "TagB", "async " + std::to_string(i))));
  for (auto& future : pending) {
    auto result = future.get();
    std::printf("async: %s\n", result ? result->msg_id.c_str() : result.status().to_string().c_str());
  }

  producer.shutdown();
  timing->print();
  return 0;
}
