// Helpers for the transport suites: handlers built from lambdas, a waitable response callback,
// and bounded waiting. Every wait has a generous deadline so a broken transport fails a test
// instead of hanging it.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "mqkit/plugin/v1/transport.hpp"
#include "plugin_fixture.hpp"

namespace mqkit::transport_testing {

namespace v1 = ::mqkit::plugin::v1;
using namespace std::chrono_literals;

inline constexpr auto kWait = 10s;  // "surely broken" for anything that should take milliseconds

// Polls `predicate` until it holds or `timeout` passes; returns its last value.
inline bool eventually(const std::function<bool()>& predicate, std::chrono::milliseconds timeout = kWait) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!predicate()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(2ms);
  }
  return true;
}

inline std::string text_of(const std::vector<std::uint8_t>& bytes) { return {bytes.begin(), bytes.end()}; }
inline std::vector<std::uint8_t> bytes_of(std::string_view text) { return {text.begin(), text.end()}; }

// A RequestHandler whose on_request is a lambda; counts on_channel_closed calls.
class FnHandler final : public v1::RequestHandler {
 public:
  using Fn = std::function<void(const std::shared_ptr<v1::Channel>&, v1::RemotingCommand)>;
  explicit FnHandler(Fn fn) : fn_(std::move(fn)) {}
  void on_request(const std::shared_ptr<v1::Channel>& channel, v1::RemotingCommand request) noexcept override {
    fn_(channel, std::move(request));
  }
  void on_channel_closed(const std::shared_ptr<v1::Channel>& /*channel*/) noexcept override { ++closed_; }
  int closed() const { return closed_.load(); }

 private:
  Fn fn_;
  std::atomic<int> closed_{0};
};

// Answers every request with SUCCESS, echoing body, extFields and serialization; remark "echo".
inline std::shared_ptr<FnHandler> echo_handler() {
  return std::make_shared<FnHandler>([](const std::shared_ptr<v1::Channel>& channel, v1::RemotingCommand request) {
    if (request.is_oneway()) return;
    auto response = v1::RemotingCommand::response_to(request, 0, std::string("echo"));
    response.ext_fields = request.ext_fields;
    response.body = std::move(request.body);
    EXPECT_TRUE(channel->send(std::move(response)).is_ok());
  });
}

// A ResponseCallback whose outcome a test can wait for; counts how often it was called.
class Outcome {
 public:
  v1::ResponseCallback callback() {
    return [this](v1::Result<v1::RemotingCommand> result) {
      std::lock_guard lock(mutex_);
      ++calls_;
      if (!result_) result_.emplace(std::move(result));
      done_.notify_all();
    };
  }
  // The first outcome, or a test failure after `timeout`.
  v1::Result<v1::RemotingCommand> wait(std::chrono::milliseconds timeout = kWait) {
    std::unique_lock lock(mutex_);
    if (!done_.wait_for(lock, timeout, [this] { return result_.has_value(); })) {
      ADD_FAILURE() << "callback not called within " << timeout.count() << "ms";
      return v1::Status::internal("no callback");
    }
    return *result_;
  }
  int calls() const {
    std::lock_guard lock(mutex_);
    return calls_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable done_;
  std::optional<v1::Result<v1::RemotingCommand>> result_;
  int calls_ = 0;
};

// Opens and closes on demand: for handlers that must hold a request until the test says so.
class Gate {
 public:
  void open() {
    std::lock_guard lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }
  bool wait(std::chrono::milliseconds timeout = kWait) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [this] { return open_; });
  }
  bool is_open() const {
    std::lock_guard lock(mutex_);
    return open_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool open_ = false;
};

// Runs a function when it goes out of scope. Tests declare one that shuts the transports down
// after the locals their handlers capture, so no transport thread outlives those locals.
class AtScopeExit {
 public:
  explicit AtScopeExit(std::function<void()> fn) : fn_(std::move(fn)) {}
  AtScopeExit(const AtScopeExit&) = delete;
  AtScopeExit& operator=(const AtScopeExit&) = delete;
  ~AtScopeExit() { fn_(); }

 private:
  std::function<void()> fn_;
};

inline std::shared_ptr<v1::Transport> load_transport(const std::string& name,
                                                     const std::map<std::string, std::string>& config = {}) {
  return mqkit::testing::load_plugin<v1::Transport>(name, config);
}

inline std::string loopback(std::uint16_t port) { return "127.0.0.1:" + std::to_string(port); }

inline v1::RemotingCommand request_with_body(std::int32_t code, std::string_view body) {
  auto request = v1::RemotingCommand::request(code);
  request.body = bytes_of(body);
  return request;
}

}  // namespace mqkit::transport_testing
