#include "transports/remoting/codec/header_codec.hpp"

namespace mqkit::plugins::transports::remoting {

bool serialize_type_from_byte(std::uint8_t byte, v1::SerializeType* out) noexcept {
  switch (byte) {
    case 0: *out = v1::SerializeType::kJson; return true;
    case 1: *out = v1::SerializeType::kRocketMq; return true;
    default: return false;
  }
}

v1::Status append_header(const v1::RemotingCommand& command, std::vector<std::uint8_t>* out) {
  return command.serialize_type == v1::SerializeType::kRocketMq ? append_binary_header(command, out)
                                                                : append_json_header(command, out);
}

v1::Result<v1::RemotingCommand> decode_header(v1::SerializeType type, std::span<const std::uint8_t> bytes) {
  return type == v1::SerializeType::kRocketMq ? decode_binary_header(bytes) : decode_json_header(bytes);
}

}  // namespace mqkit::plugins::transports::remoting
