// A Channel that records what is sent through it, for processor tests.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <vector>

#include "mqkit/plugin/v1/transport.hpp"

namespace mqkit::broker::testing {

class FakeChannel final : public plugin::v1::Channel {
 public:
  explicit FakeChannel(std::uint64_t id = 1, std::string remote = "127.0.0.1:50000") : id_(id), remote_(std::move(remote)) {}

  std::uint64_t id() const noexcept override { return id_; }
  std::string remote_address() const noexcept override { return remote_; }
  std::string local_address() const noexcept override { return "127.0.0.1:10911"; }
  bool is_open() const noexcept override { return true; }
  plugin::v1::Status send(plugin::v1::RemotingCommand command) noexcept override {
    std::lock_guard lock(mutex_);
    sent_.push_back(std::move(command));
    cv_.notify_all();
    return plugin::v1::Status::ok();
  }
  using Answerer = std::function<plugin::v1::Result<plugin::v1::RemotingCommand>(const plugin::v1::RemotingCommand&)>;
  // invoke() answers with `answerer` from now on, instead of failing.
  void answer_with(Answerer answerer) {
    std::lock_guard lock(mutex_);
    answerer_ = std::move(answerer);
  }
  void invoke(plugin::v1::RemotingCommand request, std::chrono::milliseconds,
              plugin::v1::ResponseCallback done) noexcept override {
    Answerer answerer;
    {
      std::lock_guard lock(mutex_);
      answerer = answerer_;
    }
    plugin::v1::Result<plugin::v1::RemotingCommand> answer = plugin::v1::Status::unavailable("fake channel does not answer");
    if (answerer) answer = answerer(request);
    (void)send(std::move(request));
    done(std::move(answer));
  }
  void close() noexcept override {}

  std::vector<plugin::v1::RemotingCommand> sent() const {
    std::lock_guard lock(mutex_);
    return sent_;
  }
  // Waits until at least `count` commands were sent; false on timeout.
  bool wait_for(std::size_t count, std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, timeout, [&] { return sent_.size() >= count; });
  }
  plugin::v1::RemotingCommand last() const {
    std::lock_guard lock(mutex_);
    return sent_.back();
  }

 private:
  std::uint64_t id_;
  std::string remote_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<plugin::v1::RemotingCommand> sent_;
  Answerer answerer_;
};

}  // namespace mqkit::broker::testing
