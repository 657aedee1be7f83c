#include "mqkit/protocol/topic_attributes.hpp"

#include <algorithm>
#include <array>

namespace mqkit::protocol {

using plugin::v1::Result;
using plugin::v1::Status;

namespace {

struct SupportedAttribute {
  std::string_view key;
  std::array<std::string_view, 6> allowed;
};

constexpr SupportedAttribute kSupported[] = {
    {"message.type", {"UNSPECIFIED", "NORMAL", "FIFO", "DELAY", "TRANSACTION", "MIXED"}},
};

const SupportedAttribute* find_supported(std::string_view key) {
  for (const auto& a : kSupported) {
    if (a.key == key) return &a;
  }
  return nullptr;
}

}  // namespace

Result<AttributeMap> parse_attribute_changes(std::string_view text) {
  AttributeMap changes;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (item.empty()) continue;
    if (item.front() != '+' && item.front() != '-') {
      return Status::invalid_argument("attribute \"" + std::string(item) + "\" must start with + (add or change) or - (remove)");
    }
    const auto equals = item.find('=');
    const std::string key(item.substr(0, equals));
    const std::string value(equals == std::string_view::npos ? std::string_view() : item.substr(equals + 1));
    if (key.size() < 2) return Status::invalid_argument("attribute \"" + std::string(item) + "\" names no key");
    if (key.front() == '+' && equals == std::string_view::npos) {
      return Status::invalid_argument("attribute \"" + std::string(item) + "\" has no value (+key=value)");
    }
    if (key.front() == '-' && equals != std::string_view::npos) {
      return Status::invalid_argument("attribute \"" + std::string(item) + "\" removes a key and takes no value (-key)");
    }
    changes[key] = value;
  }
  return changes;
}

std::string format_attribute_changes(const AttributeMap& changes) {
  std::string text;
  for (const auto& [key, value] : changes) {
    if (!text.empty()) text += ',';
    if (!key.empty() && key.front() == '-') {
      text += key;
      continue;
    }
    if (key.empty() || key.front() != '+') text += '+';
    text += key + "=" + value;
  }
  return text;
}

Result<AttributeMap> alter_topic_attributes(bool create, const AttributeMap& current, const AttributeMap& changes) {
  AttributeMap result = current;
  for (const auto& [signed_key, value] : changes) {
    const bool removal = !signed_key.empty() && signed_key.front() == '-';
    const std::string key = !signed_key.empty() && (removal || signed_key.front() == '+') ? signed_key.substr(1) : signed_key;
    const SupportedAttribute* supported = find_supported(key);
    if (supported == nullptr) return Status::invalid_argument("unsupported topic attribute: " + key);
    if (removal) {
      if (create) return Status::invalid_argument("a topic being created cannot remove attribute " + key);
      if (result.erase(key) == 0) return Status::invalid_argument("attempt to delete a nonexistent attribute: " + key);
      continue;
    }
    if (std::find(supported->allowed.begin(), supported->allowed.end(), value) == supported->allowed.end()) {
      std::string allowed;
      for (const auto v : supported->allowed) allowed += (allowed.empty() ? "" : ", ") + std::string(v);
      return Status::invalid_argument("topic attribute " + key + "=" + value + " is not one of " + allowed);
    }
    result[key] = value;
  }
  return result;
}

}  // namespace mqkit::protocol
