#include "mqkit/kernel/lifecycle.hpp"

#include <gtest/gtest.h>

namespace mqkit::kernel {
namespace {

using plugin::v1::Status;

class Recorder : public Component {
 public:
  Recorder(std::string name, std::vector<std::string>* log, bool fail = false)
      : name_(std::move(name)), log_(log), fail_(fail) {}
  std::string_view name() const noexcept override { return name_; }
  Status start() override {
    if (fail_) return Status::io_error("disk on fire");
    log_->push_back("start " + name_);
    return Status::ok();
  }
  void stop() noexcept override { log_->push_back("stop " + name_); }

 private:
  std::string name_;
  std::vector<std::string>* log_;
  bool fail_;
};

TEST(LifecycleTest, StartsInDependencyOrderStopsInReverse) {
  std::vector<std::string> log;
  Lifecycle lifecycle;
  lifecycle.add(std::make_shared<Recorder>("broker", &log), {"store", "transport"});
  lifecycle.add(std::make_shared<Recorder>("transport", &log));
  lifecycle.add(std::make_shared<Recorder>("store", &log));
  ASSERT_TRUE(lifecycle.start_all().is_ok());
  EXPECT_EQ(lifecycle.started(), (std::vector<std::string>{"store", "transport", "broker"}));
  lifecycle.stop_all();
  EXPECT_EQ(log, (std::vector<std::string>{"start store", "start transport", "start broker", "stop broker",
                                           "stop transport", "stop store"}));
}

TEST(LifecycleTest, FailureUnwindsWhatStarted) {
  std::vector<std::string> log;
  Lifecycle lifecycle;
  lifecycle.add(std::make_shared<Recorder>("store", &log));
  lifecycle.add(std::make_shared<Recorder>("transport", &log));
  lifecycle.add(std::make_shared<Recorder>("broker", &log, /*fail=*/true), {"store", "transport"});
  const Status s = lifecycle.start_all();
  EXPECT_EQ(s.message(), "starting broker: disk on fire");
  EXPECT_EQ(log, (std::vector<std::string>{"start store", "start transport", "stop transport", "stop store"}));
}

TEST(LifecycleTest, CyclesAndUnknownDependenciesStartNothing) {
  std::vector<std::string> log;
  Lifecycle cycle;
  cycle.add(std::make_shared<Recorder>("a", &log), {"b"});
  cycle.add(std::make_shared<Recorder>("b", &log), {"a"});
  EXPECT_EQ(cycle.start_all().message(), "component dependency cycle: a -> b -> a");
  Lifecycle unknown;
  unknown.add(std::make_shared<Recorder>("a", &log), {"nope"});
  EXPECT_EQ(unknown.start_all().message(), "component 'a' depends on unknown component 'nope'");
  EXPECT_TRUE(log.empty());
}

TEST(LifecycleTest, DestructorStopsRunningComponents) {
  std::vector<std::string> log;
  {
    Lifecycle lifecycle;
    lifecycle.add(std::make_shared<Recorder>("store", &log));
    ASSERT_TRUE(lifecycle.start_all().is_ok());
  }
  EXPECT_EQ(log, (std::vector<std::string>{"start store", "stop store"}));
}

}  // namespace
}  // namespace mqkit::kernel
