// mqkit-plugin-demo: shows the client policy plugins chosen in etc/client.toml at work — a
// rebalance across three consumers, round-robin sends, and the fault strategy steering sends
// away from a broker that just failed.
#include <iostream>

#include "mqkit/kernel/bootstrap.hpp"

namespace v1 = mqkit::plugin::v1;

int main(int argc, char** argv) {
  using namespace mqkit::kernel;
  const ParsedCommandLine parsed = parse_command_line(argc, argv, "mqkit-plugin-demo", "client plugins demo");
  if (parsed.exit_now) return parsed.exit_code;
  auto boot = Bootstrap::create(parsed.options);
  if (!boot) {
    std::cerr << "mqkit-plugin-demo: " << boot.status().message() << "\n";
    return 2;
  }
  auto& b = **boot;
  auto selector = b.make_plugin<v1::QueueSelector>("producer.selector", "round_robin");
  auto fault = b.make_plugin<v1::FaultStrategy>("producer.fault_strategy", "latency_fault_tolerance");
  auto allocator = b.make_plugin<v1::QueueAllocator>("consumer.allocator", "averagely");
  for (const v1::Status& s : {selector.status(), fault.status(), allocator.status(), b.finish_validation()}) {
    if (!s) {
      std::cerr << "mqkit-plugin-demo: " << s.message() << "\n";
      return 2;
    }
  }

  std::vector<v1::MessageQueue> queues;
  for (const char* broker : {"broker-a", "broker-b"}) {
    for (int q = 0; q < 4; ++q) queues.push_back({"DemoTopic", broker, q});
  }
  const std::vector<std::string> consumers{"10.0.0.1@c1", "10.0.0.2@c2", "10.0.0.3@c3"};
  std::cout << "rebalance of 8 queues over 3 consumers:\n";
  for (const auto& me : consumers) {
    auto mine = (*allocator)->allocate({"DemoGroup", me, queues, consumers});
    if (!mine) {
      std::cerr << mine.status().to_string() << "\n";
      return 1;
    }
    std::cout << "  " << me << ":";
    for (const auto& q : *mine) std::cout << " " << q.broker_name << "/" << q.queue_id;
    std::cout << "\n";
  }

  const auto send = [&](const char* label) {
    std::cout << label;
    for (int i = 0; i < 6; ++i) {
      v1::SelectContext context{.topic = "DemoTopic", .availability = fault->get()};
      auto index = (*selector)->select(queues, context);
      if (!index) {
        std::cerr << index.status().to_string() << "\n";
        return false;
      }
      std::cout << " " << queues[*index].broker_name << "/" << queues[*index].queue_id;
    }
    std::cout << "\n";
    return true;
  };
  if (!send("sends while both brokers are healthy:")) return 1;
  (*fault)->update("broker-a", 3000, /*isolation=*/true);
  std::cout << "broker-a failed a send; available now? " << ((*fault)->is_available("broker-a") ? "yes" : "no")
            << "\n";
  if (!send("sends right after the failure:       ")) return 1;
  return 0;
}
