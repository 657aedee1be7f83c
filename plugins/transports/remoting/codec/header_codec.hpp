// The two encodings of a RemotingCommand header: JSON (serialize type 0, what Java and every
// third-party client send by default) and ROCKETMQ binary (serialize type 1). The layouts are in
// docs/protocol.md; this is the only code that reads or writes them.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "mqkit/plugin/v1/remoting_command.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::plugins::transports::remoting {

namespace v1 = ::mqkit::plugin::v1;

// Maps the top byte of the header word; false for anything but 0 (JSON) and 1 (ROCKETMQ).
bool serialize_type_from_byte(std::uint8_t byte, v1::SerializeType* out) noexcept;

// Appends the header of `command` in `command.serialize_type` to `out`. InvalidArgument when a
// field does not fit the binary layout (codes and versions are 16-bit there).
v1::Status append_header(const v1::RemotingCommand& command, std::vector<std::uint8_t>* out);
v1::Status append_json_header(const v1::RemotingCommand& command, std::vector<std::uint8_t>* out);
v1::Status append_binary_header(const v1::RemotingCommand& command, std::vector<std::uint8_t>* out);

// Decodes header bytes; the result has no body and `serialize_type` = `type`. Corruption with a
// message naming the problem when the bytes are malformed.
v1::Result<v1::RemotingCommand> decode_header(v1::SerializeType type, std::span<const std::uint8_t> bytes);
v1::Result<v1::RemotingCommand> decode_json_header(std::span<const std::uint8_t> bytes);
v1::Result<v1::RemotingCommand> decode_binary_header(std::span<const std::uint8_t> bytes);

}  // namespace mqkit::plugins::transports::remoting
