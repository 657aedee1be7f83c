// Quick start, the consuming side with a lite pull consumer: subscribe to a topic, poll in a loop,
// print every message and commit after each batch; stop on Ctrl-C (or after --count messages).
//   example_pull_consumer [-c etc/client.toml] [--set consumer.group=g] [--set client.namesrv_addr=h:p]
//                         [--topic TopicTest] [--expression '*'] [--count N]
// The name servers come from the file, --set, or $NAMESRV_ADDR; [consumer] keys configure the rest
// (auto_commit, poll_timeout, pull_batch_size, ...).
#include <CLI/CLI.hpp>

#include <signal.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "mqkit/client/lite_pull_consumer.hpp"
#include "mqkit/kernel/bootstrap.hpp"
#include "mqkit/kernel/signals.hpp"

using namespace mqkit::client;

namespace {

void print(const MessageExt& m) {
  std::printf("%s %s/%d offset=%lld tags=%s keys=%s body=%s\n", m.topic().c_str(), m.broker_name.c_str(), m.queue_id,
              static_cast<long long>(m.queue_offset), std::string(m.tags()).c_str(), std::string(m.keys()).c_str(),
              m.body().c_str());
}

// SIGINT/SIGTERM are blocked in every thread; take one if it arrived, without waiting.
bool termination_requested() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  const timespec no_wait{};
  return sigtimedwait(&signals, nullptr, &no_wait) > 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Print the messages of a topic with a lite pull consumer", "example_pull_consumer"};
  mqkit::kernel::CommandLine command_line;
  std::string config_file;
  std::string topic = "TopicTest";
  std::string expression = "*";
  long long wanted = 0;
  app.add_option("-c,--config", config_file, "client TOML file (etc/client.toml)");
  app.add_option("--set", command_line.overrides, "override a value: section.key=value (repeatable)");
  app.add_option("--topic", topic, "topic to subscribe to");
  app.add_option("--expression", expression, "tag expression: * or 'TagA || TagB'");
  app.add_option("--count", wanted, "stop after this many messages (0: on Ctrl-C only)");
  CLI11_PARSE(app, argc, argv);
  command_line.config_file = config_file;

  // The poll loop runs on the main thread, so Ctrl-C is noticed between polls (at most one
  // poll timeout late) rather than waited for.
  mqkit::kernel::block_termination_signals();  // before any client thread starts
  auto boot = mqkit::kernel::Bootstrap::create(command_line);
  if (!boot) {
    std::fprintf(stderr, "config: %s\n", boot.status().to_string().c_str());
    return 2;
  }
  auto config = load_consumer_config(**boot);
  if (!config) {
    std::fprintf(stderr, "config: %s\n", config.status().to_string().c_str());
    return 2;
  }
  if (config->group.empty()) config->group = "example_pull_consumer";

  LitePullConsumer consumer(*config);
  Status ready = consumer.subscribe(topic, expression);
  if (ready) ready = consumer.start();
  if (!ready) {
    std::fprintf(stderr, "consumer: %s\n", ready.to_string().c_str());
    return 1;
  }
  long long received = 0;
  while (!termination_requested() && (wanted == 0 || received < wanted)) {
    auto messages = consumer.poll(std::chrono::milliseconds(500));
    if (!messages) {
      std::fprintf(stderr, "poll: %s\n", messages.status().to_string().c_str());
      break;
    }
    for (const auto& m : *messages) print(m);
    received += static_cast<long long>(messages->size());
    if (!messages->empty()) {
      if (Status s = consumer.commit(); !s) std::fprintf(stderr, "commit: %s\n", s.to_string().c_str());
    }
    std::fflush(stdout);
  }
  consumer.shutdown();
  std::printf("received %lld messages\n", received);
  return 0;
}
