// The commitlog store as the broker gets it: loaded through the kernel's registry with nothing
// but a store path, driven by the kernel's dispatch pipeline.
#include <gtest/gtest.h>

#include <filesystem>

#include "append_and_wait.hpp"
#include "mqkit/kernel/dispatch_pipeline.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "plugin_fixture.hpp"
#include "test_hooks.hpp"

namespace mqkit::plugins::stores::commitlog {
namespace {

namespace v1 = ::mqkit::plugin::v1;

class PluginTest : public ::testing::Test {
 protected:
  PluginTest() {
    std::string pattern = (std::filesystem::temp_directory_path() / "mqkit-commitlog-plugin-XXXXXX").string();
    EXPECT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  ~PluginTest() override { std::filesystem::remove_all(dir_); }

  v1::Result<v1::AppendResult> append(v1::MessageStore& store, std::string_view body) {
    v1::MessageToAppend m;
    m.topic = "T";
    m.body = {reinterpret_cast<const std::uint8_t*>(body.data()), body.size()};
    return append_and_wait(store, std::span(&m, 1));
  }

  std::string dir_;
};

TEST_F(PluginTest, LoadsWithOnlyAStorePathAndWorks) {
  auto store = mqkit::testing::load_plugin<v1::MessageStore>("commitlog", {{"store_path", dir_},
                                                                           {"mapped_file_size_commit_log", "64KiB"},
                                                                           {"max_hash_slot_num", "1000"},
                                                                           {"max_index_num", "4000"}});
  ASSERT_NE(store, nullptr);
  auto report = store->start();
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  kernel::DispatchPipeline pipeline(store);
  pipeline.start(report->dispatch_from_offset);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(append(*store, "m" + std::to_string(i)).is_ok());
  pipeline.notify_appended();
  ASSERT_TRUE(pipeline.wait_dispatched(store->stats().commit_log_max_offset, std::chrono::seconds(10)));
  v1::ReadRequest request;
  request.topic = "T";
  auto page = store->read(request);
  ASSERT_TRUE(page.is_ok());
  EXPECT_EQ(page->records.size(), 3u);
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/commitlog/00000000000000000000"));
  EXPECT_EQ(std::filesystem::file_size(dir_ + "/commitlog/00000000000000000000"), 64u * 1024);

  auto* hooks = static_cast<TestHooks*>(store->extension(kTestHooksId));
  ASSERT_NE(hooks, nullptr) << "the test hooks reach a loaded plugin too";
  EXPECT_TRUE(hooks->write_checkpoint_now().is_ok());
  EXPECT_EQ(store->extension("something.else"), nullptr);
  pipeline.stop();
  store->shutdown();
}

TEST_F(PluginTest, ConfigIsValidatedByTheSchema) {
  auto bad_flush = mqkit::testing::try_load_plugin_object(v1::Category::kStore, "commitlog",
                                                          {{"store_path", dir_}, {"flush_disk_type", "SOMETIMES"}});
  EXPECT_FALSE(bad_flush.is_ok());
  auto bad_hour = mqkit::testing::try_load_plugin_object(v1::Category::kStore, "commitlog",
                                                         {{"store_path", dir_}, {"delete_when", "25"}});
  ASSERT_FALSE(bad_hour.is_ok());
  EXPECT_NE(bad_hour.status().message().find("delete_when"), std::string::npos);
  auto by_alias = mqkit::testing::try_load_plugin_object(v1::Category::kStore, "DefaultMessageStore",
                                                         {{"store_path", dir_}, {"flushDiskType", "SYNC_FLUSH"}});
  EXPECT_TRUE(by_alias.is_ok()) << "RocketMQ's class name and camelCase keys: " << by_alias.status().to_string();
}

}  // namespace
}  // namespace mqkit::plugins::stores::commitlog
