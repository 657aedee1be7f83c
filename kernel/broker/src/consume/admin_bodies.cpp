#include "mqkit/broker/consume/admin_bodies.hpp"

#include "mqkit/protocol/bodies.hpp"

namespace mqkit::broker {

std::string encode_reset_offset_body(const std::map<plugin::v1::MessageQueue, std::int64_t>& offsets,
                                     plugin::v1::LanguageCode language) {
  const protocol::ResetOffsetBody body{offsets};
  return language == plugin::v1::LanguageCode::kCpp ? protocol::encode_for_cpp(body) : protocol::encode(body);
}

}  // namespace mqkit::broker
