#include "mqkit/protocol/namespace.hpp"

#include <algorithm>
#include <cctype>

#include "mqkit/protocol/validation.hpp"

namespace mqkit::protocol {

using plugin::v1::Status;

namespace {

// MixAll.CID_RMQ_SYS_PREFIX: the brokers' own consumer groups.
constexpr std::string_view kSystemGroupPrefix = "CID_RMQ_SYS_";

// The %RETRY% or %DLQ% prefix of `resource`, empty for neither.
std::string_view group_topic_prefix(std::string_view resource) {
  for (const std::string_view prefix : {kRetryGroupTopicPrefix, kDlqGroupTopicPrefix}) {
    if (resource.starts_with(prefix)) return prefix;
  }
  return {};
}

bool starts_with_namespace(std::string_view name, std::string_view name_space) {
  return name.size() > name_space.size() && name.starts_with(name_space) &&
         name[name_space.size()] == kNamespaceSeparator;
}

}  // namespace

Status validate_namespace(std::string_view name_space) {
  const std::string where = "namespace '" + std::string(name_space) + "'";
  if (name_space.empty()) return Status::invalid_argument("namespace is empty");
  if (name_space.size() > kMaxNamespaceLength) {
    return Status::invalid_argument(where + " is longer than " + std::to_string(kMaxNamespaceLength) +
                                    " characters (a wrapped topic, namespace%topic, has at most " +
                                    std::to_string(kMaxTopicLength) + ")");
  }
  const auto bad = std::find_if(name_space.begin(), name_space.end(), [](char c) {
    return !(std::isalnum(static_cast<unsigned char>(c)) || c == '|' || c == '_' || c == '-');
  });
  if (bad != name_space.end()) {
    return Status::invalid_argument(where + " contains '" + std::string(1, *bad) +
                                    "'; allowed: letters, digits, |, _ and - (% separates the namespace from names)");
  }
  return Status::ok();
}

bool is_system_resource(std::string_view resource) {
  return is_system_topic(resource) || resource.starts_with(kSystemGroupPrefix);
}

bool is_already_with_namespace(std::string_view resource, std::string_view name_space) {
  if (name_space.empty() || resource.empty() || is_system_resource(resource)) return false;
  return starts_with_namespace(resource.substr(group_topic_prefix(resource).size()), name_space);
}

std::string wrap_namespace(std::string_view name_space, std::string_view resource) {
  if (name_space.empty() || resource.empty() || is_system_resource(resource) ||
      is_already_with_namespace(resource, name_space)) {
    return std::string(resource);
  }
  const std::string_view prefix = group_topic_prefix(resource);
  std::string wrapped;
  wrapped.reserve(resource.size() + name_space.size() + 1);
  wrapped.append(prefix).append(name_space).push_back(kNamespaceSeparator);
  wrapped.append(resource.substr(prefix.size()));
  return wrapped;
}

std::string without_any_namespace(std::string_view resource) {
  if (resource.empty() || is_system_resource(resource)) return std::string(resource);
  const std::string_view prefix = group_topic_prefix(resource);
  const std::string_view name = resource.substr(prefix.size());
  const auto separator = name.find(kNamespaceSeparator);
  // A '%' in first place separates nothing (RocketMQ's index > 0).
  if (separator == std::string_view::npos || separator == 0) return std::string(resource);
  return std::string(prefix) + std::string(name.substr(separator + 1));
}

std::string without_namespace(std::string_view resource, std::string_view name_space) {
  if (resource.empty() || name_space.empty()) return std::string(resource);
  if (!starts_with_namespace(resource.substr(group_topic_prefix(resource).size()), name_space)) {
    return std::string(resource);
  }
  return without_any_namespace(resource);
}

}  // namespace mqkit::protocol
