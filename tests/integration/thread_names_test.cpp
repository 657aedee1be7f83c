// Thread names (docs/threading.md): every thread of a running name server and broker carries a
// name saying what it does, so that `top -H` or perf points an operator at the busy part. Only
// the main thread keeps the program's name.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "local_cluster.hpp"

namespace mqkit::testing {
namespace {

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

  const auto broker = thread_names(cluster.broker(0).pid());
  for (const char* expected : {"RemotingIO-0", "RemotingExec-0", "ReputMessage", "PullRequestHold", "FlushRealTime",
                               "AllocateMapFile", "StoreHousekeep", "BrokerSchedule", "ScheduleMessage", "TimerMessage",
                               "HAService", "TransactionChk"}) {
    EXPECT_EQ(broker.count(expected), 1u) << "no broker thread named " << expected;
  }
  EXPECT_EQ(broker.count("mqbroker") ? broker.at("mqbroker") : 0, 1) << "unnamed broker threads";

  const auto namesrv = thread_names(cluster.namesrv(0).pid());
  for (const char* expected : {"RemotingIO-0", "RemotingExec-0", "ScanBroker"}) {
    EXPECT_EQ(namesrv.count(expected), 1u) << "no name server thread named " << expected;
  }
  EXPECT_EQ(namesrv.count("mqnamesrv") ? namesrv.at("mqnamesrv") : 0, 1) << "unnamed name server threads";
}

}  // namespace
}  // namespace mqkit::testing
