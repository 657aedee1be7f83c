#include "serving_brokers.hpp"

#include <algorithm>
#include <iterator>
#include <mutex>

namespace mqkit::client {

namespace {

// A broker hosting queues of the topic, writable or not: one that only turned read-only is still
// the topic's, and its record in the fault strategy still applies when it turns writable again.
std::set<std::string> brokers_of(const TopicRouteInfo& route) {
  std::set<std::string> names;
  for (const auto& queues : route.route.queue_datas) names.insert(queues.broker_name);
  return names;
}

}  // namespace

void ServingBrokers::track(std::string_view topic, const TopicRouteInfo& route) {
  {
    std::shared_lock lock(mutex_);
    if (brokers_of_topic_.contains(topic)) return;
  }
  std::unique_lock lock(mutex_);
  brokers_of_topic_.try_emplace(std::string(topic), brokers_of(route));
}

std::vector<std::string> ServingBrokers::update(std::string_view topic, const TopicRouteInfo& route) {
  std::unique_lock lock(mutex_);
  const auto it = brokers_of_topic_.find(topic);
  if (it == brokers_of_topic_.end()) return {};
  const std::set<std::string> before = all_brokers();
  it->second = brokers_of(route);
  const std::set<std::string> after = all_brokers();
  std::vector<std::string> gone;
  std::ranges::set_difference(before, after, std::back_inserter(gone));
  return gone;
}

std::set<std::string> ServingBrokers::all_brokers() const {
  std::set<std::string> all;
  for (const auto& [topic, brokers] : brokers_of_topic_) all.insert(brokers.begin(), brokers.end());
  return all;
}

}  // namespace mqkit::client
