// Comparing and describing commands: for logs, test failures and the fuzzer's round-trip check.
#pragma once

#include <string>

#include "mqkit/plugin/v1/remoting_command.hpp"

namespace mqkit::plugins::transports::remoting {

namespace v1 = ::mqkit::plugin::v1;

// True when every field that travels on the wire is equal (body slices count as body bytes).
bool same_on_wire(const v1::RemotingCommand& a, const v1::RemotingCommand& b);

// One line: code, opaque, flag, language, version, serialization, remark, extFields, body size.
std::string describe(const v1::RemotingCommand& command);

}  // namespace mqkit::plugins::transports::remoting
