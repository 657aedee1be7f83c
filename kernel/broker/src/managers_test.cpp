#include <gtest/gtest.h>

#include "mqkit/broker/consumer_offset_manager.hpp"
#include "mqkit/broker/subscription_group_manager.hpp"
#include "mqkit/broker/topic_config_manager.hpp"
#include "mqkit/kernel/config_document.hpp"

namespace mqkit::broker {
namespace {

BrokerConfig default_config() {
  auto doc = kernel::ConfigDocument::parse("", "t").value();
  return broker_config_from(doc.section("broker", broker_schema()).value()).value();
}

TEST(TopicConfigManagerTest, SystemTopicsAndPersistence) {
  InMemoryMetadataFiles files;
  const BrokerConfig config = default_config();
  {
    TopicConfigManager topics(config, files);
    ASSERT_TRUE(topics.load().is_ok());
    auto tbw = topics.find("TBW102");
    ASSERT_TRUE(tbw.has_value());
    EXPECT_EQ(tbw->perm, 7);
    EXPECT_EQ(tbw->write_queue_nums, 8);
    EXPECT_EQ(topics.find("SCHEDULE_TOPIC_XXXX")->read_queue_nums, 18);
    protocol::TopicConfig t;
    t.topic_name = "Orders";
    t.read_queue_nums = t.write_queue_nums = 4;
    ASSERT_TRUE(topics.update(t).is_ok());
  }
  TopicConfigManager reloaded(config, files);
  ASSERT_TRUE(reloaded.load().is_ok());
  EXPECT_EQ(reloaded.find("Orders")->write_queue_nums, 4);
}

TEST(TopicConfigManagerTest, AutoCreateFollowsTheDefaultTopic) {
  InMemoryMetadataFiles files;
  const BrokerConfig config = default_config();
  TopicConfigManager topics(config, files);
  ASSERT_TRUE(topics.load().is_ok());
  int changes = 0;
  topics.on_change([&] { ++changes; });
  const auto before = topics.snapshot().data_version.counter;
  auto created = topics.create_on_send("NewTopic", "TBW102", 4, 0);
  ASSERT_TRUE(created.is_ok()) << created.status().to_string();
  EXPECT_EQ(created->write_queue_nums, 4);
  EXPECT_EQ(created->perm, 6);
  EXPECT_EQ(topics.create_on_send("Big", "TBW102", 100, 0)->write_queue_nums, 8);  // capped by TBW102
  EXPECT_GT(topics.snapshot().data_version.counter, before);
  EXPECT_EQ(changes, 2);
  EXPECT_EQ(topics.create_on_send("X", "NoSuchDefault", 4, 0).status().code(), plugin::v1::StatusCode::kNotFound);
  EXPECT_EQ(topics.create_on_send("bad topic!", "TBW102", 4, 0).status().message(),
            "topic 'bad topic!' contains illegal characters; allowed: letters, digits, %, |, _ and -");
}

TEST(TopicConfigManagerTest, NoAutoCreateWithoutTbw102) {
  InMemoryMetadataFiles files;
  BrokerConfig config = default_config();
  config.auto_create_topic_enable = false;
  TopicConfigManager topics(config, files);
  ASSERT_TRUE(topics.load().is_ok());
  EXPECT_FALSE(topics.find("TBW102").has_value());
  EXPECT_FALSE(topics.create_on_send("T", "TBW102", 4, 0).is_ok());
}

TEST(TopicConfigManagerTest, TraceTopicOnlyWithTraceTopicEnable) {
  {
    InMemoryMetadataFiles files;
    const BrokerConfig config = default_config();
    TopicConfigManager topics(config, files);
    ASSERT_TRUE(topics.load().is_ok());
    EXPECT_FALSE(topics.find("RMQ_SYS_TRACE_TOPIC").has_value());
  }
  InMemoryMetadataFiles files;
  BrokerConfig config = default_config();
  config.trace_topic_enable = true;
  config.msg_trace_topic_name = "MyTraces";
  TopicConfigManager topics(config, files);
  ASSERT_TRUE(topics.load().is_ok());
  const auto trace = topics.find("MyTraces");
  ASSERT_TRUE(trace.has_value());
  EXPECT_EQ(trace->read_queue_nums, 1);
  EXPECT_EQ(trace->write_queue_nums, 1);
  EXPECT_EQ(trace->perm, 6);
}

TEST(TopicConfigManagerTest, CorruptFileIsAnError) {
  InMemoryMetadataFiles files;
  ASSERT_TRUE(files.save("topics.json", "{oops").is_ok());
  const BrokerConfig config = default_config();
  TopicConfigManager topics(config, files);
  EXPECT_EQ(topics.load().message().rfind("reading topics.json: topic config table is not valid JSON", 0), 0u);
}

TEST(ConsumerOffsetManagerTest, CommitQueryPersistReload) {
  InMemoryMetadataFiles files;
  {
    ConsumerOffsetManager offsets(files);
    offsets.commit("g1", "T", 0, 12);
    offsets.commit("g1", "T", 3, 7);
    offsets.commit("g2", "T", 0, 1);
    offsets.commit("g1", "U", 0, 5);
    EXPECT_EQ(offsets.query("g1", "T", 3), 7);
    EXPECT_FALSE(offsets.query("g1", "T", 1).has_value());
    EXPECT_EQ(offsets.topics_of_group("g1"), (std::set<std::string>{"T", "U"}));
    EXPECT_EQ(offsets.groups_of_topic("T"), (std::set<std::string>{"g1", "g2"}));
    ASSERT_TRUE(offsets.persist().is_ok());
  }
  EXPECT_EQ(*files.load("consumerOffset.json").value(),
            R"({"offsetTable":{"T@g1":{"0":12,"3":7},"T@g2":{"0":1},"U@g1":{"0":5}}})");
  ConsumerOffsetManager reloaded(files);
  ASSERT_TRUE(reloaded.load().is_ok());
  EXPECT_EQ(reloaded.offsets("g1", "T"), (std::map<std::int32_t, std::int64_t>{{0, 12}, {3, 7}}));
  reloaded.remove_topic("T");
  EXPECT_FALSE(reloaded.query("g2", "T", 0).has_value());
}

TEST(ConsumerOffsetManagerTest, ReadsRocketMqFilesWithBareKeys) {
  InMemoryMetadataFiles files;
  ASSERT_TRUE(files.save("consumerOffset.json", R"({"offsetTable":{"T@g":{0:123,1:456}}})").is_ok());
  ConsumerOffsetManager offsets(files);
  ASSERT_TRUE(offsets.load().is_ok());
  EXPECT_EQ(offsets.query("g", "T", 1), 456);
}

TEST(ConsumerOffsetManagerTest, SlaveTakesTheMastersOffsetsAndKeepsItsOwnOthers) {
  InMemoryMetadataFiles files;
  ConsumerOffsetManager master(files);
  master.commit("g", "T", 0, 12);
  master.commit("g", "T", 1, 3);
  EXPECT_EQ(master.encode(), R"({"offsetTable":{"T@g":{"0":12,"1":3}}})");

  InMemoryMetadataFiles slave_files;
  ConsumerOffsetManager slave(slave_files);
  slave.commit("g", "T", 2, 99);     // replaced: the master has T@g
  slave.commit("only", "T", 0, 7);   // kept: the master does not know the group (RocketMQ's putAll)
  auto table = ConsumerOffsetManager::decode(master.encode());
  ASSERT_TRUE(table.is_ok()) << table.status().to_string();
  ASSERT_TRUE(slave.merge_from_master(std::move(*table)).is_ok());
  EXPECT_EQ(slave.offsets("g", "T"), (std::map<std::int32_t, std::int64_t>{{0, 12}, {1, 3}}));
  EXPECT_EQ(slave.query("only", "T", 0), 7);
  EXPECT_EQ(*slave_files.load("consumerOffset.json").value(), slave.encode());  // persisted

  // A RocketMQ master answers with bare queue ids.
  EXPECT_EQ(ConsumerOffsetManager::decode(R"({"offsetTable":{"T@g":{0:5}}})")->at("T@g").at(0), 5);
  EXPECT_FALSE(ConsumerOffsetManager::decode(R"({"offsetTable":{"T@g":{"x":5}}})").is_ok());
  EXPECT_FALSE(ConsumerOffsetManager::decode(R"({"table":{}})").is_ok());
}

TEST(SubscriptionGroupManagerTest, AutoCreateAndPersist) {
  InMemoryMetadataFiles files;
  BrokerConfig config = default_config();
  {
    SubscriptionGroupManager groups(config, files);
    ASSERT_TRUE(groups.load().is_ok());
    auto g = groups.find_or_create("cg");
    ASSERT_TRUE(g.has_value());
    EXPECT_EQ(g->retry_max_times, 16);
    SubscriptionGroupConfig changed = *g;
    changed.retry_max_times = 3;
    ASSERT_TRUE(groups.update(changed).is_ok());
  }
  SubscriptionGroupManager reloaded(config, files);
  ASSERT_TRUE(reloaded.load().is_ok());
  EXPECT_EQ(reloaded.find("cg")->retry_max_times, 3);
  config.auto_create_subscription_group = false;
  SubscriptionGroupManager strict(config, files);
  EXPECT_FALSE(strict.find_or_create("other").has_value());
}

TEST(SubscriptionGroupManagerTest, SlaveTakesTheMastersGroupsWhenTheyDiffer) {
  InMemoryMetadataFiles files;
  const BrokerConfig config = default_config();
  SubscriptionGroupManager slave(config, files);
  ASSERT_TRUE(slave.load().is_ok());
  ASSERT_TRUE(slave.find_or_create("local").has_value());
  SubscriptionGroupConfig g;
  g.group_name = "cg";
  g.retry_max_times = 5;
  const std::map<std::string, SubscriptionGroupConfig> master{{"cg", g}};
  EXPECT_EQ(slave.replace_from_master(master).value(), true);
  EXPECT_EQ(slave.all(), master);
  EXPECT_EQ(slave.replace_from_master(master).value(), false);  // nothing changed, nothing written
  SubscriptionGroupManager reloaded(config, files);
  ASSERT_TRUE(reloaded.load().is_ok());
  EXPECT_EQ(reloaded.all(), master);
}

}  // namespace
}  // namespace mqkit::broker
