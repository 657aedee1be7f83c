// Quick start, the consuming side with a push consumer: subscribe to a topic, print every message
// the listener gets, stop on Ctrl-C (or after --count messages), offsets committed on the way out.
//   example_push_consumer [-c etc/client.toml] [--set consumer.group=g] [--set client.namesrv_addr=h:p]
//                         [--topic TopicTest] [--expression '*' | --sql "a > 5"] [--count N] [--orderly]
// The name servers come from the file, --set, or $NAMESRV_ADDR; [consumer] keys configure the rest.
#include <CLI/CLI.hpp>

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <string>

#include "mqkit/client/push_consumer.hpp"
#include "mqkit/kernel/bootstrap.hpp"
#include "mqkit/kernel/signals.hpp"

using namespace mqkit::client;

namespace {

std::atomic<long long> received{0};
long long wanted = 0;

void print(const MessageExt& m) {
  std::printf("%s %s/%d offset=%lld reconsumed=%d tags=%s keys=%s body=%s\n", m.topic().c_str(), m.broker_name.c_str(),
              m.queue_id, static_cast<long long>(m.queue_offset), m.reconsume_times, std::string(m.tags()).c_str(),
              std::string(m.keys()).c_str(), m.body().c_str());
  std::fflush(stdout);  // line by line: a pipe (| grep, | tee) sees each message when it arrives
  if (++received == wanted) ::kill(::getpid(), SIGINT);  // the main thread is waiting for a signal
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Print the messages of a topic with a push consumer", "example_push_consumer"};
  mqkit::kernel::CommandLine command_line;
  std::string config_file;
  std::string topic = "TopicTest";
  std::string expression = "*";
  std::string sql;
  bool orderly = false;
  app.add_option("-c,--config", config_file, "client TOML file (etc/client.toml)");
  app.add_option("--set", command_line.overrides, "override a value: section.key=value (repeatable)");
  app.add_option("--topic", topic, "topic to subscribe to");
  auto* tag_option = app.add_option("--expression", expression, "tag expression: * or 'TagA || TagB'");
  app.add_option("--sql", sql, "SQL92 expression over message properties (docs/filter.md)")->excludes(tag_option);
  app.add_option("--count", wanted, "stop after this many messages (0: on Ctrl-C only)");
  app.add_flag("--orderly", orderly, "orderly listener: one queue's messages in order");
  CLI11_PARSE(app, argc, argv);
  command_line.config_file = config_file;

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
  if (config->group.empty()) config->group = "example_push_consumer";

  PushConsumer consumer(*config);
  Status ready =
      consumer.subscribe(topic, sql.empty() ? MessageSelector::by_tag(expression) : MessageSelector::by_sql(sql));
  if (ready) {
    ready = orderly ? consumer.register_listener([](std::span<const MessageExt> messages, ConsumeOrderlyContext&) {
      for (const auto& m : messages) print(m);
      return ConsumeOrderlyStatus::kSuccess;
    })
                    : consumer.register_listener([](std::span<const MessageExt> messages, ConsumeConcurrentlyContext&) {
                        for (const auto& m : messages) print(m);
                        return ConsumeConcurrentlyStatus::kConsumeSuccess;
                      });
  }
  if (ready) ready = consumer.start();
  if (!ready) {
    std::fprintf(stderr, "consumer: %s\n", ready.to_string().c_str());
    return 1;
  }
  std::fflush(stdout);
  mqkit::kernel::wait_for_termination_signal();
  consumer.shutdown();
  std::printf("received %lld messages\n", received.load());
  return 0;
}
