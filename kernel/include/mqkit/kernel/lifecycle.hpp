// Lifecycle: starts components in dependency order and stops them in reverse. A component that
// fails to start unwinds the ones already started (stopped in reverse), so a half-started
// process never keeps running.
//
// Used from one thread (main): add, start_all, stop_all.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::kernel {

class Component {
 public:
  virtual ~Component() = default;
  virtual std::string_view name() const noexcept = 0;
  virtual plugin::v1::Status start() = 0;
  // Must be safe to call once after a successful start(); never throws.
  virtual void stop() noexcept = 0;
};

class Lifecycle {
 public:
  Lifecycle() = default;
  ~Lifecycle();  // stops whatever is still running
  Lifecycle(const Lifecycle&) = delete;
  Lifecycle& operator=(const Lifecycle&) = delete;

  // `depends_on` names components that must be started first.
  void add(std::shared_ptr<Component> component, std::vector<std::string> depends_on = {});

  // Orders components (unknown dependency or a cycle is an error, nothing started) and starts
  // them; on the first failure stops those already started and returns the failure.
  plugin::v1::Status start_all();
  void stop_all() noexcept;

  // Start order of the last start_all (for logs and tests).
  const std::vector<std::string>& started() const noexcept { return started_names_; }

 private:
  struct Entry {
    std::shared_ptr<Component> component;
    std::vector<std::string> depends_on;
  };
  plugin::v1::Result<std::vector<Entry*>> order();

  std::vector<Entry> entries_;
  std::vector<Entry*> running_;
  std::vector<std::string> started_names_;
};

}  // namespace mqkit::kernel
