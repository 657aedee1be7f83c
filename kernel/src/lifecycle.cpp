#include "mqkit/kernel/lifecycle.hpp"

#include <algorithm>
#include <functional>
#include <map>

#include "mqkit/kernel/logging.hpp"

namespace mqkit::kernel {

using plugin::v1::Result;
using plugin::v1::Status;

Lifecycle::~Lifecycle() { stop_all(); }

void Lifecycle::add(std::shared_ptr<Component> component, std::vector<std::string> depends_on) {
  entries_.push_back({std::move(component), std::move(depends_on)});
}

Result<std::vector<Lifecycle::Entry*>> Lifecycle::order() {
  std::map<std::string, Entry*, std::less<>> by_name;
  for (auto& e : entries_) {
    if (!by_name.emplace(std::string(e.component->name()), &e).second) {
      return Status::invalid_argument("component '" + std::string(e.component->name()) + "' added twice");
    }
  }
  // Depth-first topological sort; insertion order breaks ties so the order is predictable.
  enum class Mark { kNone, kVisiting, kDone };
  std::map<const Entry*, Mark> marks;
  std::vector<Entry*> ordered;
  std::vector<std::string> path;
  std::function<Status(Entry*)> visit = [&](Entry* e) -> Status {
    const std::string name(e->component->name());
    if (marks[e] == Mark::kDone) return Status::ok();
    if (marks[e] == Mark::kVisiting) {
      std::string cycle;
      for (const auto& p : path) cycle += p + " -> ";
      return Status::invalid_argument("component dependency cycle: " + cycle + name);
    }
    marks[e] = Mark::kVisiting;
    path.push_back(name);
    for (const auto& dep : e->depends_on) {
      auto it = by_name.find(dep);
      if (it == by_name.end()) {
        return Status::invalid_argument("component '" + name + "' depends on unknown component '" + dep + "'");
      }
      MQKIT_RETURN_IF_ERROR(visit(it->second));
    }
    path.pop_back();
    marks[e] = Mark::kDone;
    ordered.push_back(e);
    return Status::ok();
  };
  for (auto& e : entries_) MQKIT_RETURN_IF_ERROR(visit(&e));
  return ordered;
}

Status Lifecycle::start_all() {
  MQKIT_ASSIGN_OR_RETURN(std::vector<Entry*> ordered, order());
  started_names_.clear();
  auto log = logger("lifecycle");
  for (Entry* e : ordered) {
    const std::string name(e->component->name());
    Status s;
    try {
      s = e->component->start();
    } catch (const std::exception& ex) {
      s = Status::internal(std::string("start threw: ") + ex.what());
    }
    if (!s) {
      log->error("component {} failed to start: {}; stopping {} started component(s)", name, s.to_string(),
                 running_.size());
      stop_all();
      return s.with_context("starting " + name);
    }
    log->debug("component {} started", name);
    running_.push_back(e);
    started_names_.push_back(name);
  }
  return Status::ok();
}

void Lifecycle::stop_all() noexcept {
  while (!running_.empty()) {
    Entry* e = running_.back();
    running_.pop_back();
    e->component->stop();
  }
}

}  // namespace mqkit::kernel
