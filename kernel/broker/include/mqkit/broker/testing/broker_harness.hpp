// BrokerHarness: a complete BrokerContext over the in-memory store plugin and in-memory
// metadata, with the dispatch pipeline and long polling running and an empty pop state (nothing
// loaded) — what processor tests use.
#pragma once

#include <atomic>
#include <memory>

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/broker/metadata_files.hpp"

namespace mqkit::broker::testing {

class BrokerHarness {
 public:
  // `broker_toml` is the [broker] section's body (e.g. "auto_create_topic_enable = false").
  explicit BrokerHarness(const std::string& broker_toml = "");
  ~BrokerHarness();

  BrokerContext& context() noexcept { return context_; }
  BrokerConfig& config() noexcept { return config_; }
  InMemoryMetadataFiles& files() noexcept { return files_; }
  // Waits until everything appended so far is dispatched (readable by queue).
  void wait_dispatched();
  // The fake clock used by the context (ms); starts at the real time.
  std::atomic<std::int64_t>& now() noexcept { return now_; }

 private:
  BrokerConfig config_;
  InMemoryMetadataFiles files_;
  std::atomic<std::int64_t> now_;
  std::unique_ptr<TopicConfigManager> topics_;
  std::unique_ptr<ConsumerOffsetManager> offsets_;
  std::unique_ptr<SubscriptionGroupManager> groups_;
  std::unique_ptr<ConsumerManager> consumers_;
  std::unique_ptr<ProducerManager> producers_;
  std::unique_ptr<RebalanceLockManager> locks_;
  std::unique_ptr<LongPollingService> long_polling_;
  std::unique_ptr<kernel::DispatchPipeline> dispatch_;
  BrokerContext context_;
};

}  // namespace mqkit::broker::testing
