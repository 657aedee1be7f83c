// Ordered messages: every message of one order goes to the same queue (hash selector on the
// order id), so a consumer of that queue sees an order's steps in sequence.
//   example_ordered_producer [namesrv host:port[;host:port]]   (or set $NAMESRV_ADDR)
#include <cstdio>
#include <string>

#include "mqkit/client/producer.hpp"

using namespace mqkit::client;

int main(int argc, char** argv) {
  ProducerConfig config;
  config.group = "ordered_producer_group";
  if (argc > 1) config.client.namesrv_addresses = split_namesrv_addresses(argv[1]);

  Producer producer(config);
  if (auto started = producer.start(); !started) {
    std::fprintf(stderr, "start failed: %s\n", started.to_string().c_str());
    return 1;
  }
  auto selector = producer.make_selector({"hash"});  // RocketMQ's SelectMessageQueueByHash
  if (!selector) {
    std::fprintf(stderr, "no hash selector: %s\n", selector.status().to_string().c_str());
    return 1;
  }

  const char* steps[] = {"created", "paid", "shipped", "done"};
  for (int order_id = 0; order_id < 10; ++order_id) {
    for (const char* step : steps) {
      Message message("OrderTopic", "TagA", "order " + std::to_string(order_id) + " " + step);
      message.set_keys("order-" + std::to_string(order_id));
      auto result = producer.send(std::move(message), {.selector = *selector,
                                                       .argument = SelectArgument::int64(order_id)});
      if (!result) {
        std::fprintf(stderr, "send failed: %s\n", result.status().to_string().c_str());
        continue;
      }
      std::printf("order %d %-8s -> %s:%d offset %lld\n", order_id, step,
                  result->message_queue.broker_name.c_str(), result->message_queue.queue_id,
                  static_cast<long long>(result->queue_offset));
    }
  }
  producer.shutdown();
  return 0;
}
