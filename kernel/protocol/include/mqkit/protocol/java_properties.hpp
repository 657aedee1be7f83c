// java.util.Properties text, the body of GET_BROKER_CONFIG's answer and UPDATE_BROKER_CONFIG's
// request (RocketMQ's MixAll.properties2String / string2Properties).
//
// Writing: one "key=value" line per entry, in key order; a backslash, a line break, and an '=',
// ':' or leading space of a key are escaped so Properties.load reads the same text back.
// Reading: what Properties.load reads of line-oriented text: '#'/'!' comment lines and blank
// lines skipped, the key ends at the first unescaped '=', ':' or whitespace, the escapes \t \n
// \r \f \\ and \<char> are understood; \uXXXX and continuation lines are not (RocketMQ never
// writes them) and are refused.
//
// Pure functions; any thread.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::protocol {

std::string encode_java_properties(const std::map<std::string, std::string>& properties);
plugin::v1::Result<std::map<std::string, std::string>> decode_java_properties(std::string_view text);

}  // namespace mqkit::protocol
