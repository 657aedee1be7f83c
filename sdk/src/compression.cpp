#include "compression.hpp"

#include <zlib.h>

#include <algorithm>

namespace mqkit::client {

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
  if (inflateInit(&stream) != Z_OK) return Status::internal("zlib inflateInit failed");
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
    return Status::corruption("compressed body inflates to more than " + std::to_string(max_size) + " bytes");
  }
  return Status::corruption("compressed body is not a complete zlib stream (zlib code " + std::to_string(rc) + ")");
}

}  // namespace mqkit::client
