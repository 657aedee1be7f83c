#include "mqkit/client/compression.hpp"

#include <zlib.h>

#include <algorithm>

#include "mqkit/plugin/v1/message_record.hpp"

namespace mqkit::client {

namespace {

// 5.x compression type bits (8-10) next to COMPRESSED: 0 (legacy) and 3 are zlib.
constexpr std::int32_t kCompressionTypeMask = 0x700;
constexpr std::int32_t kCompressionZlib = 0x300;

}  // namespace

bool is_zlib_compressed(std::int32_t sys_flag) {
  const std::int32_t type = sys_flag & kCompressionTypeMask;
  return (sys_flag & plugin::v1::sys_flag::kCompressed) != 0 && (type == 0 || type == kCompressionZlib);
}

std::int32_t without_compression(std::int32_t sys_flag) {
  return sys_flag & ~(plugin::v1::sys_flag::kCompressed | kCompressionTypeMask);
}

Result<std::string> zlib_compress(std::string_view body, int level) {
  uLongf size = compressBound(static_cast<uLong>(body.size()));
  std::string out(size, '\0');
  const int rc = compress2(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(body.data()),
                           static_cast<uLong>(body.size()), level);
  if (rc != Z_OK) return Status::internal("zlib compress2 failed with code " + std::to_string(rc));
  out.resize(size);
  return out;
}

Result<std::string> zlib_uncompress(std::span<const std::uint8_t> compressed, std::size_t max_size) {
  z_stream stream{};
  // 32 added to the window bits: zlib's automatic zlib-or-gzip header detection.
  if (inflateInit2(&stream, MAX_WBITS + 32) != Z_OK) return Status::internal("zlib inflateInit failed");
  stream.next_in = const_cast<Bytef*>(compressed.data());
  stream.avail_in = static_cast<uInt>(compressed.size());
  std::string out;
  int rc = Z_OK;
  while (rc == Z_OK) {
    if (out.size() >= max_size) break;
    const std::size_t chunk = std::min<std::size_t>(std::max<std::size_t>(compressed.size() * 4, 4096), max_size - out.size());
    const std::size_t used = out.size();
    out.resize(used + chunk);
    stream.next_out = reinterpret_cast<Bytef*>(out.data() + used);
    stream.avail_out = static_cast<uInt>(chunk);
    rc = inflate(&stream, Z_NO_FLUSH);
    out.resize(used + chunk - stream.avail_out);
    // Z_BUF_ERROR with output space left means the input ended before the stream did.
    if (rc == Z_BUF_ERROR && stream.avail_out != 0) break;
    if (rc == Z_BUF_ERROR) rc = Z_OK;
  }
  inflateEnd(&stream);
  if (rc == Z_STREAM_END) return out;
  if (out.size() >= max_size) {
    return Status::resource_exhausted("compressed body inflates to more than " + std::to_string(max_size) + " bytes");
  }
  return Status::corruption("compressed body is not a complete zlib or gzip stream (zlib code " + std::to_string(rc) + ")");
}

}  // namespace mqkit::client
