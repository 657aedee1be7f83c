// commitlog_crash_child: opens a commitlog store in a directory and appends numbered messages
// from one thread per queue until it is killed (or a time limit passes), printing one line per
// acknowledged message:  "ack <queue> <queue offset>". The line is written with one write(2)
// right after the store's callback, so whatever the parent reads was acknowledged before the
// process died. A message's body names its queue and queue offset (crash_config.hpp), so the
// parent can check every record it finds after a restart.
//
//   commitlog_crash_child <dir> <ASYNC_FLUSH|SYNC_FLUSH|ASYNC_FLUSH_POOL> <seconds> <pause between appends, us>
//
// The pause keeps ASYNC_FLUSH runs (which acknowledge as fast as memory allows) to a few MB.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "append_and_wait.hpp"
#include "crash_config.hpp"
#include "mqkit/kernel/dispatch_pipeline.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "plugin_fixture.hpp"

namespace v1 = mqkit::plugin::v1;
namespace crash = mqkit::testing::crash;

namespace {

void say(const std::string& line) {
  const std::string text = line + "\n";
  (void)!::write(STDOUT_FILENO, text.data(), text.size());
}

// Appends one message and waits for its callback.
v1::Result<v1::AppendResult> append_one(v1::MessageStore& store, int queue, long long offset) {
  const std::string body = crash::body_for(queue, offset);
  const std::string properties = v1::encode_properties({{"KEYS", "k-" + std::to_string(queue) + "-" + std::to_string(offset)}});
  v1::MessageToAppend m;
  m.topic = crash::kTopic;
  m.queue_id = queue;
  m.body = {reinterpret_cast<const std::uint8_t*>(body.data()), body.size()};
  m.properties = properties;
  return mqkit::plugins::stores::commitlog::append_and_wait(store, std::span(&m, 1), {}, std::chrono::seconds(30));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s <dir> <ASYNC_FLUSH|SYNC_FLUSH|ASYNC_FLUSH_POOL> <seconds> <pause us>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const std::string flush = argv[2];
  const auto limit = std::chrono::seconds(std::stoi(argv[3]));
  const auto pause = std::chrono::microseconds(std::stoi(argv[4]));

  auto object = mqkit::testing::try_load_plugin_object(v1::Category::kStore, "commitlog", crash::store_config(dir, flush));
  if (!object.is_ok()) {
    std::fprintf(stderr, "loading the store: %s\n", object.status().to_string().c_str());
    return 1;
  }
  auto store = std::static_pointer_cast<v1::MessageStore>(std::move(object).value());
  auto report = store->start();
  if (!report.is_ok()) {
    std::fprintf(stderr, "starting the store: %s\n", report.status().to_string().c_str());
    return 1;
  }
  mqkit::kernel::DispatchPipeline pipeline(store);
  pipeline.start(report->dispatch_from_offset);
  // Queue offsets continue from what recovery found (acknowledged or not).
  if (!pipeline.wait_dispatched(store->stats().commit_log_max_offset, std::chrono::seconds(20))) {
    std::fprintf(stderr, "dispatch did not catch up: %s\n", pipeline.last_error().to_string().c_str());
    return 1;
  }
  say("commitlog crash child ready on port 0");

  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::atomic<bool> failed{false};
  std::vector<std::thread> writers;
  for (int queue = 0; queue < crash::kQueues; ++queue) {
    writers.emplace_back([&, queue] {
      for (long long offset = store->max_offset(crash::kTopic, queue);
           std::chrono::steady_clock::now() < deadline && !failed; ++offset) {
        auto result = append_one(*store, queue, offset);
        if (!result.is_ok() || result->queue_offset != offset || result->flush_timed_out) {
          std::fprintf(stderr, "append %d:%lld: %s\n", queue, offset,
                       result.is_ok() ? "unexpected queue offset or flush timeout" : result.status().to_string().c_str());
          failed = true;
          return;
        }
        say("ack " + std::to_string(queue) + " " + std::to_string(offset));
        pipeline.notify_appended();
        if (pause.count() > 0) std::this_thread::sleep_for(pause);
      }
    });
  }
  for (auto& writer : writers) writer.join();
  pipeline.stop();
  store->shutdown();
  return failed ? 1 : 0;
}
