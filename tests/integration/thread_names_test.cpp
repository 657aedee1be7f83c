// Thread names (docs/threading.md): every thread of a running name server and broker carries a
// name saying what it does, so that `top -H` or perf points an operator at the busy part. Only
// the main thread keeps the program's name.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <initializer_list>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "local_cluster.hpp"

namespace mqkit::testing {
namespace {

// Threads a sanitizer runtime adds, which keep the program's name.
#if defined(__SANITIZE_THREAD__)
constexpr int kRuntimeThreads = 1;  // ThreadSanitizer's background thread
#else
constexpr int kRuntimeThreads = 0;
#endif

// How many threads of `pid` carry each name (/proc/<pid>/task/<tid>/comm).
std::map<std::string, int> thread_names(pid_t pid) {
  std::map<std::string, int> names;
  const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator(tasks, ec)) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    if (std::getline(comm, name)) ++names[name];
  }
  return names;
}

TEST(ThreadNamesTest, EveryServerThreadButTheMainOneIsNamedForItsWork) {
  LocalCluster cluster("thread_names");
  ASSERT_TRUE(cluster.add_namesrv().is_ok());
  ASSERT_TRUE(cluster.add_broker({}).is_ok());

  // A thread names itself once it runs: a service started just before "ready" may not have yet.
  const auto settled = [](pid_t pid, const std::string& program, std::initializer_list<const char*> expected) {
    std::map<std::string, int> names;
    const auto complete = [&] {
      names = thread_names(pid);
      const bool all = std::all_of(expected.begin(), expected.end(), [&](const char* n) { return names.count(n) == 1; });
      return all && names.count(program) == 1 && names.at(program) == 1;
    };
    for (int i = 0; i < 200 && !complete(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
    return names;
  };
  const std::initializer_list<const char*> broker_threads = {
      "RemotingIO-0",   "RemotingExec-0",  "ReputMessage", "PullRequestHold", "FlushRealTime", "AllocateMapFile",
      "StoreHousekeep", "BrokerSchedule", "ScheduleMessage", "TimerMessage",   "HAService",     "TransactionChk"};
  const auto broker = settled(cluster.broker(0).pid(), "mqbroker", broker_threads);
  for (const char* expected : broker_threads) {
    EXPECT_EQ(broker.count(expected), 1u) << "no broker thread named " << expected;
  }
  EXPECT_EQ(broker.count("mqbroker") ? broker.at("mqbroker") : 0, 1 + kRuntimeThreads)
      << "unnamed broker threads";

  const std::initializer_list<const char*> namesrv_threads = {"RemotingIO-0", "RemotingExec-0", "ScanBroker"};
  const auto namesrv = settled(cluster.namesrv(0).pid(), "mqnamesrv", namesrv_threads);
  for (const char* expected : namesrv_threads) {
    EXPECT_EQ(namesrv.count(expected), 1u) << "no name server thread named " << expected;
  }
  EXPECT_EQ(namesrv.count("mqnamesrv") ? namesrv.at("mqnamesrv") : 0, 1 + kRuntimeThreads)
      << "unnamed name server threads";
}

}  // namespace
}  // namespace mqkit::testing
