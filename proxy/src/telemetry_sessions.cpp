#include "telemetry_sessions.hpp"

namespace mqkit::proxy {

void TelemetrySessions::publish(const std::shared_ptr<Session>& session, const std::vector<std::string>& topics) {
  std::lock_guard lock(mutex_);
  for (const auto& topic : topics) publishers_[topic].insert(session);
}

void TelemetrySessions::close(const std::shared_ptr<Session>& session) {
  std::lock_guard lock(mutex_);
  for (auto it = publishers_.begin(); it != publishers_.end();) {
    it->second.erase(session);
    it = it->second.empty() ? publishers_.erase(it) : std::next(it);
  }
}

bool TelemetrySessions::send_to_publisher(const std::string& topic, const v2::TelemetryCommand& command) {
  std::vector<std::shared_ptr<Session>> candidates;
  {
    std::lock_guard lock(mutex_);
    const auto it = publishers_.find(topic);
    if (it == publishers_.end()) return false;
    candidates.assign(it->second.begin(), it->second.end());
  }
  for (const auto& session : candidates) {
    if (session->write(command)) return true;
  }
  return false;
}

}  // namespace mqkit::proxy
