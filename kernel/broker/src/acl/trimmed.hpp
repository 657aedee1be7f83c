// The ACL file's values are read with blanks around them ignored, as RocketMQ trims them.
#pragma once

#include <string_view>

namespace mqkit::broker::acl {

inline std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

}  // namespace mqkit::broker::acl
