// The quick start's producer and push consumer, built outside the mqkit tree against the
// installed SDK package (tests/out-of-tree-client, find_package(mqkit-client)), run against a real
// name server and broker: what a user's application does with the SDK.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <sstream>
#include <string>

#include "child_process.hpp"
#include "local_cluster.hpp"

namespace mqkit::testing {
namespace {

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++count;
  return count;
}

// Lines "async: <message id>": the producer prints the status there instead when a send failed.
std::size_t async_ids(const std::string& out) {
  std::istringstream lines(out);
  std::size_t count = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("async: ", 0) != 0) continue;
    const std::string id = line.substr(7);
    if (id.size() == 32 && std::all_of(id.begin(), id.end(), [](unsigned char c) { return std::isxdigit(c) != 0; })) {
      ++count;
    }
  }
  return count;
}

TEST(OutOfTreeClientTest, ExamplesBuiltAgainstTheInstalledSdkSendAndReceive) {
  // The package's libraries look for plugins where mqkit is installed; these are the build's.
  ::setenv("MQKIT_PLUGIN_PATH", MQKIT_PLUGIN_DIR, 1);
  LocalCluster cluster("out_of_tree_client_test");
  ASSERT_TRUE(cluster.add_namesrv().is_ok());
  ASSERT_TRUE(cluster.add_broker({}).is_ok());
  const std::string app_dir = MQKIT_OUT_OF_TREE_CLIENT_DIR;

  const ToolRun sent = run_tool(app_dir + "/producer", {cluster.namesrv_addr(0)}, "oot-producer",
                                std::chrono::seconds(60));
  ASSERT_EQ(sent.code, 0) << sent.out << sent.err;
  EXPECT_EQ(count_of(sent.out, "SEND_OK msgId="), 10u) << sent.out << sent.err;
  EXPECT_EQ(async_ids(sent.out), 10u) << sent.out;

  const ToolRun received = run_tool(
      app_dir + "/push_consumer",
      {"--set", "client.namesrv_addr=" + cluster.namesrv_addr(0), "--topic", "TopicTest", "--count", "20", "--set",
       "consumer.group=out_of_tree_client", "--set", "consumer.consume_from_where=CONSUME_FROM_FIRST_OFFSET"},
      "oot-push-consumer", std::chrono::seconds(60));
  ASSERT_EQ(received.code, 0) << received.out << received.err;
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(count_of(received.out, "body=Hello RocketMQ " + std::to_string(i) + "\n"), 1u) << received.out;
    EXPECT_EQ(count_of(received.out, "body=async " + std::to_string(i) + "\n"), 1u) << received.out;
  }
  EXPECT_NE(received.out.find("received 20 messages"), std::string::npos) << received.out;
}

}  // namespace
}  // namespace mqkit::testing
