// zlib compression of message bodies, as RocketMQ's producer writes them (java.util.zip
// Deflater: zlib header and trailer) and consumers inflate them; gzip too, as RocketMQ 5's
// gRPC clients send bodies (mqproxy inflates those). Any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "mqkit/client/types.hpp"

namespace mqkit::client {

// Bodies inflated beyond this are refused: a corrupt or hostile body must not take all memory.
inline constexpr std::size_t kMaxInflatedBodySize = 128 * 1024 * 1024;

// Whether a body stored or sent with `sys_flag` is zlib-compressed: COMPRESSED, with a legacy
// (0) or zlib compression type in RocketMQ 5.x's type bits.
bool is_zlib_compressed(std::int32_t sys_flag);
// `sys_flag` once its body is inflated: without COMPRESSED and the compression type.
std::int32_t without_compression(std::int32_t sys_flag);

// zlib stream of `body` at `level` (1..9).
Result<std::string> zlib_compress(std::string_view body, int level);
// The inflated bytes of a zlib or gzip stream (told apart by their headers); Corruption when
// `compressed` is neither complete, ResourceExhausted when it inflates to more than `max_size`.
Result<std::string> zlib_uncompress(std::span<const std::uint8_t> compressed,
                                    std::size_t max_size = kMaxInflatedBodySize);

}  // namespace mqkit::client
