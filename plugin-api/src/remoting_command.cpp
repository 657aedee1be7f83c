#include "mqkit/plugin/v1/remoting_command.hpp"

#include <algorithm>
#include <cctype>

namespace mqkit::plugin::v1 {

namespace {
constexpr std::string_view kLanguageNames[] = {"JAVA", "CPP", "DOTNET", "PYTHON", "DELPHI",
                                               "ERLANG", "RUBY", "OTHER", "HTTP", "GO",
                                               "PHP", "OMS", "RUST"};
}  // namespace

std::string_view to_string(LanguageCode code) noexcept {
  const auto index = static_cast<std::size_t>(code);
  return index < std::size(kLanguageNames) ? kLanguageNames[index] : "OTHER";
}

bool parse_language(std::string_view name, LanguageCode* out) noexcept {
  for (std::size_t i = 0; i < std::size(kLanguageNames); ++i) {
    if (kLanguageNames[i] == name) {
      *out = static_cast<LanguageCode>(i);
      return true;
    }
  }
  return false;
}

Result<std::int64_t> ExtFields::get_int(std::string_view key) const {
  auto text = get(key);
  if (!text) return Status::not_found("header field '" + std::string(key) + "' is missing");
  std::int64_t value = 0;
  const char* begin = text->data();
  const char* end = begin + text->size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end) {
    return Status::invalid_argument("header field '" + std::string(key) + "' is not an integer: '" +
                                    std::string(*text) + "'");
  }
  return value;
}

bool ExtFields::get_bool(std::string_view key, bool fallback) const {
  auto text = get(key);
  if (!text) return fallback;
  return std::equal(text->begin(), text->end(), std::string_view("true").begin(),
                    std::string_view("true").end(),
                    [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
}

}  // namespace mqkit::plugin::v1
