#include "offset_reset.hpp"

#include <mutex>

#include "mqkit/kernel/logging.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/header_fields.hpp"
#include "mqkit/protocol/bodies.hpp"

namespace mqkit::client {

namespace {

std::shared_ptr<spdlog::logger> log() { return kernel::logger("client"); }

// The groups of one instance. The instance's processor holds it weakly.
struct Router {
  std::mutex mutex;
  std::map<std::string, std::weak_ptr<OffsetResetTarget>> targets;
};

struct Routers {
  std::mutex mutex;
  std::map<const ClientInstance*, std::shared_ptr<Router>> by_instance;
};

Routers& routers() {
  static auto* all = new Routers();  // outlives every instance, even at exit
  return *all;
}

void on_notice(ClientInstance& instance, const std::weak_ptr<Router>& weak_router,
               const plugin::v1::RemotingCommand& request) {
  const std::string group(request.ext_fields.get("group").value_or(""));
  const std::string topic(request.ext_fields.get("topic").value_or(""));
  auto router = weak_router.lock();
  if (!router) return;
  std::shared_ptr<OffsetResetTarget> target;
  {
    std::lock_guard lock(router->mutex);
    if (auto it = router->targets.find(group); it != router->targets.end()) target = it->second.lock();
  }
  if (!target) {
    log()->debug("offset reset of {} for group {}, which is not consuming here", topic, group);
    return;
  }
  auto body = protocol::decode_reset_offset_body(protocol::body_text(request));
  if (!body) {
    log()->warn("offset reset of {} for {}: unreadable body ({}); re-reading the broker's offsets", topic, group,
                body.status().to_string());
    body = protocol::ResetOffsetBody{};
  }
  log()->info("{}: the broker reset the offsets of {} ({} queues)", group, topic, body->offset_table.size());
  instance.execute([target, topic, offsets = std::move(body->offset_table)] { target->reset_offsets(topic, offsets); });
}

}  // namespace

void serve_offset_resets(ClientInstance& instance, const std::string& group, std::weak_ptr<OffsetResetTarget> target) {
  auto& all = routers();
  std::shared_ptr<Router> router;
  bool install = false;
  {
    std::lock_guard lock(all.mutex);
    auto& slot = all.by_instance[&instance];
    if (!slot) {
      slot = std::make_shared<Router>();
      install = true;
    }
    router = slot;
  }
  {
    std::lock_guard lock(router->mutex);
    router->targets[group] = std::move(target);
  }
  if (install) {
    std::weak_ptr<Router> weak = router;
    instance.register_request_processor(
        protocol::request_code::kResetConsumerClientOffset,
        [&instance, weak](const std::shared_ptr<plugin::v1::Channel>&, plugin::v1::RemotingCommand request) {
          on_notice(instance, weak, request);
        });
  }
}

void stop_serving_offset_resets(ClientInstance& instance, const std::string& group) {
  auto& all = routers();
  std::lock_guard lock(all.mutex);
  const auto it = all.by_instance.find(&instance);
  if (it == all.by_instance.end()) return;
  std::lock_guard router_lock(it->second->mutex);
  it->second->targets.erase(group);
  // The last group gone: the router goes (its processor then does nothing), so that an instance
  // created later at the same address installs its own.
  if (it->second->targets.empty()) all.by_instance.erase(it);
}

}  // namespace mqkit::client
