#include "checkpoint.hpp"

#include <zlib.h>

#include <array>

#include "big_endian.hpp"

namespace mqkit::plugins::stores::commitlog {

namespace {

constexpr std::int32_t kMagic = 0x4D514B43;  // "MQKC"
constexpr std::int32_t kVersion = 1;
constexpr std::int64_t kCrcAt = 72;

std::int32_t crc_of(const std::uint8_t* bytes) {
  return static_cast<std::int32_t>(crc32(0L, bytes, static_cast<uInt>(kCrcAt)));
}

}  // namespace

v1::Result<std::optional<CheckpointData>> read_checkpoint(Env& env, const std::string& path) {
  auto content = read_small_file(env, path);
  if (!content.is_ok()) {
    if (content.status().code() == v1::StatusCode::kNotFound) return std::optional<CheckpointData>();
    return content.status();
  }
  if (content->size() < 24) {
    return v1::Status::corruption("checkpoint " + path + " is " + std::to_string(content->size()) + " bytes");
  }
  content->resize(kCheckpointSize, '\0');
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(content->data());
  CheckpointData data;
  data.physic_msg_timestamp = load_i64(bytes);
  data.logics_msg_timestamp = load_i64(bytes + 8);
  data.index_msg_timestamp = load_i64(bytes + 16);
  if (load_i32(bytes + 40) == kMagic) {
    if (load_i32(bytes + kCrcAt) != crc_of(bytes)) {
      return v1::Status::corruption("checkpoint " + path + " fails its CRC");
    }
    data.has_offsets = load_i32(bytes + 44) == kVersion;
    data.physic_offset = load_i64(bytes + 48);
    data.logics_offset = load_i64(bytes + 56);
    data.index_offset = load_i64(bytes + 64);
  }
  return std::optional<CheckpointData>(data);
}

v1::Status write_checkpoint(Env& env, const std::string& path, const CheckpointData& data) {
  std::array<std::uint8_t, kCheckpointSize> page{};
  store_i64(page.data(), data.physic_msg_timestamp);
  store_i64(page.data() + 8, data.logics_msg_timestamp);
  store_i64(page.data() + 16, data.index_msg_timestamp);
  store_i32(page.data() + 40, kMagic);
  store_i32(page.data() + 44, kVersion);
  store_i64(page.data() + 48, data.physic_offset);
  store_i64(page.data() + 56, data.logics_offset);
  store_i64(page.data() + 64, data.index_offset);
  store_i32(page.data() + kCrcAt, crc_of(page.data()));
  MQKIT_ASSIGN_OR_RETURN(auto file, env.open(path, OpenMode::kCreateIfMissing));
  MQKIT_RETURN_IF_ERROR(file->write_at(0, page));
  return file->sync();
}

}  // namespace mqkit::plugins::stores::commitlog
