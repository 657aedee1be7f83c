#include "mqkit/broker/testing/broker_harness.hpp"

#include <gtest/gtest.h>

#include <chrono>

#include "../consume/pop_service.hpp"
#include "mqkit/kernel/config_document.hpp"
#include "plugin_fixture.hpp"
#include "mqkit/kernel/wall_clock.hpp"

namespace mqkit::broker::testing {

BrokerHarness::BrokerHarness(const std::string& broker_toml)
    : now_(kernel::wall_clock_ms()) {
  auto doc = kernel::ConfigDocument::parse("[broker]\nbroker_ip1 = \"127.0.0.1\"\n" + broker_toml, "harness");
  if (!doc) {
    ADD_FAILURE() << doc.status().to_string();
    return;
  }
  auto values = doc->section("broker", broker_schema());
  if (!values) {
    ADD_FAILURE() << values.status().to_string();
    return;
  }
  config_ = broker_config_from(*values).value();
  auto store = mqkit::testing::load_plugin<plugin::v1::MessageStore>("memory");
  if (!store) return;
  auto recovered = store->start();
  if (!recovered) {
    ADD_FAILURE() << recovered.status().to_string();
    return;
  }
  topics_ = std::make_unique<TopicConfigManager>(config_, files_);
  offsets_ = std::make_unique<ConsumerOffsetManager>(files_);
  groups_ = std::make_unique<SubscriptionGroupManager>(config_, files_);
  consumers_ = std::make_unique<ConsumerManager>();
  producers_ = std::make_unique<ProducerManager>();
  locks_ = std::make_unique<RebalanceLockManager>(config_.lock_max_live_time_ms);
  long_polling_ = std::make_unique<LongPollingService>([this] { return now_.load(); });
  dispatch_ = std::make_unique<kernel::DispatchPipeline>(store);
  dispatch_->add_dispatcher(long_polling_.get());
  EXPECT_TRUE(topics_->load().is_ok());
  context_.config = &config_;
  context_.store_host = plugin::v1::parse_host_address(config_.address()).value();
  context_.store = store;
  context_.dispatch = dispatch_.get();
  context_.topics = topics_.get();
  context_.offsets = offsets_.get();
  context_.groups = groups_.get();
  context_.consumers = consumers_.get();
  context_.producers = producers_.get();
  context_.locks = locks_.get();
  context_.long_polling = long_polling_.get();
  context_.clock = [this] { return now_.load(); };
  context_.pops = std::make_shared<PopService>(context_, files_);
  dispatch_->start(recovered->dispatch_from_offset);
  long_polling_->start(10);
}

BrokerHarness::~BrokerHarness() {
  if (long_polling_) long_polling_->stop();
  if (dispatch_) dispatch_->stop();
  if (context_.store) context_.store->shutdown();
}

void BrokerHarness::wait_dispatched() {
  const auto target = context_.store->stats().commit_log_max_offset;
  EXPECT_TRUE(dispatch_->wait_dispatched(target, std::chrono::seconds(10))) << "dispatch did not reach " << target;
}

}  // namespace mqkit::broker::testing
