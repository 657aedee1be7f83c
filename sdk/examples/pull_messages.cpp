// Quick start, the consuming side: read every message of a topic from the beginning of each of
// its queues with plain PULL_MESSAGE requests (what a pull consumer does underneath).
//   example_pull_messages [namesrv host:port] [topic]   (or set $NAMESRV_ADDR)
#include <chrono>
#include <cstdio>
#include <thread>

#include "mqkit/client/client_instance.hpp"

using namespace mqkit::client;

int main(int argc, char** argv) {
  ClientConfig config;
  if (argc > 1) config.namesrv_addresses = split_namesrv_addresses(argv[1]);
  const std::string topic = argc > 2 ? argv[2] : "TopicTest";
  auto instance = ClientInstance::create(config.resolved());
  if (!instance) {
    std::fprintf(stderr, "client: %s\n", instance.status().to_string().c_str());
    return 1;
  }
  // A topic created by its first message appears in routes once the broker re-registers.
  auto route = (*instance)->route(topic);
  for (int attempt = 0; !route && attempt < 50; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    route = (*instance)->route(topic);
  }
  if (!route) {
    std::fprintf(stderr, "route of %s: %s\n", topic.c_str(), route.status().to_string().c_str());
    return 1;
  }
  int total = 0;
  for (const auto& queue : (*route)->subscribe_queues) {
    const std::string broker = (*instance)->find_broker_master(queue.broker_name);
    PullMessageRequest request;
    request.consumer_group = "example_pull_group";
    request.topic = topic;
    request.queue_id = queue.queue_id;
    request.sys_flag = pull_sys_flag::kSubscription;  // answer at once, no long polling
    for (bool more = true; more;) {
      auto result = (*instance)->api().pull_message(broker, request);
      if (!result) {
        std::fprintf(stderr, "pull %s/%d: %s\n", queue.broker_name.c_str(), queue.queue_id,
                     result.status().to_string().c_str());
        return 1;
      }
      for (const auto& m : result->messages) {
        std::printf("%s/%d offset=%lld tags=%s body=%s\n", queue.broker_name.c_str(), queue.queue_id,
                    static_cast<long long>(m.queue_offset), std::string(m.tags()).c_str(), m.body().c_str());
        ++total;
      }
      more = result->status == PullStatus::kFound && result->next_begin_offset > request.queue_offset;
      request.queue_offset = result->next_begin_offset;
    }
  }
  std::printf("pulled %d messages from %s\n", total, topic.c_str());
  return total > 0 ? 0 : 1;
}
