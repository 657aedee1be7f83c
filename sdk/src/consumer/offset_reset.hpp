// RESET_CONSUMER_CLIENT_OFFSET: a broker that moved a group's offsets on a topic (mqadmin
// resetOffsetByTime, ClientApi::reset_offset) tells every online consumer of the group, so that
// it drops what it cached and resumes from the new offsets instead of writing its old ones back.
// One ClientInstance may host several consumer groups; the notice is routed by its group. Its
// body is read in either shape a broker writes (ResetOffsetBodyForC for C++ clients, fastjson's
// map for the others; protocol/bodies.hpp).
//
// Threads: serve/stop from consumers' start and shutdown; targets are called on the instance's
// client-async thread (a reset persists offsets, which may block).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "mqkit/client/client_instance.hpp"

namespace mqkit::client {

class OffsetResetTarget {
 public:
  virtual ~OffsetResetTarget() = default;
  // `offsets`: the new offset of each queue of `topic` on the broker that sent the notice.
  virtual void reset_offsets(const std::string& topic, const std::map<MessageQueue, std::int64_t>& offsets) = 0;
};

// Routes the notices for `group` on `instance` to `target` (installing the instance's processor
// on first use). A target that is gone is skipped.
void serve_offset_resets(ClientInstance& instance, const std::string& group, std::weak_ptr<OffsetResetTarget> target);
void stop_serving_offset_resets(ClientInstance& instance, const std::string& group);

}  // namespace mqkit::client
