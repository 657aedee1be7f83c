#include "mqkit/protocol/java_properties.hpp"

namespace mqkit::protocol {

using plugin::v1::Result;
using plugin::v1::Status;

namespace {

void escape(std::string& out, std::string_view text, bool is_key) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\f': out += "\\f"; break;
      case '=':
      case ':':
        if (is_key) out += '\\';
        out += c;
        break;
      case ' ':
        // Spaces end a key; in a value only leading ones would be lost.
        if (is_key || i == 0) out += '\\';
        out += c;
        break;
      default: out += c;
    }
  }
}

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\f'; }

// Reads from `line` at `pos` up to an unescaped terminator (any char of `stops`), unescaping.
Result<std::string> unescape_until(std::string_view line, std::size_t& pos, std::string_view stops) {
  std::string out;
  while (pos < line.size() && stops.find(line[pos]) == std::string_view::npos) {
    char c = line[pos++];
    if (c != '\\') {
      out += c;
      continue;
    }
    if (pos == line.size()) return Status::invalid_argument("properties: a line ends with '\\' (continuation lines are not supported)");
    c = line[pos++];
    switch (c) {
      case 't': out += '\t'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 'f': out += '\f'; break;
      case 'u': return Status::invalid_argument("properties: \\u escapes are not supported");
      default: out += c;
    }
  }
  return out;
}

}  // namespace

std::string encode_java_properties(const std::map<std::string, std::string>& properties) {
  std::string out;
  for (const auto& [key, value] : properties) {
    escape(out, key, true);
    out += '=';
    escape(out, value, false);
    out += '\n';
  }
  return out;
}

Result<std::map<std::string, std::string>> decode_java_properties(std::string_view text) {
  std::map<std::string, std::string> properties;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find_first_of("\r\n", start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    std::size_t pos = 0;
    while (pos < line.size() && is_blank(line[pos])) ++pos;
    if (pos == line.size() || line[pos] == '#' || line[pos] == '!') continue;
    MQKIT_ASSIGN_OR_RETURN(std::string key, unescape_until(line, pos, "=: \t\f"));
    while (pos < line.size() && is_blank(line[pos])) ++pos;
    if (pos < line.size() && (line[pos] == '=' || line[pos] == ':')) ++pos;
    while (pos < line.size() && is_blank(line[pos])) ++pos;
    MQKIT_ASSIGN_OR_RETURN(std::string value, unescape_until(line, pos, {}));
    properties[std::move(key)] = std::move(value);
  }
  return properties;
}

}  // namespace mqkit::protocol
