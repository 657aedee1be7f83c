#include "mapped_file.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace mqkit::plugins::stores::commitlog {

MappedFile::MappedFile(std::string path, std::int64_t start_offset, std::int64_t size, Policy policy,
                       std::unique_ptr<File> file, std::unique_ptr<Mapping> mapping)
    : path_(std::move(path)),
      start_offset_(start_offset),
      size_(size),
      policy_(policy),
      file_(std::move(file)),
      mapping_(std::move(mapping)),
      data_(mapping_->data()) {}

MappedFile::~MappedFile() = default;

v1::Result<std::shared_ptr<MappedFile>> MappedFile::map_file(std::string path, std::int64_t start_offset,
                                                             std::int64_t size, Policy policy,
                                                             std::unique_ptr<File> file) {
  MQKIT_ASSIGN_OR_RETURN(auto mapping, file->map(size));
  if (policy.random_access) mapping->advise_random();
  return std::shared_ptr<MappedFile>(
      new MappedFile(std::move(path), start_offset, size, policy, std::move(file), std::move(mapping)));
}

v1::Result<std::shared_ptr<MappedFile>> MappedFile::create(Env& env, const std::string& path,
                                                           std::int64_t start_offset, std::int64_t size,
                                                           Policy policy) {
  MQKIT_ASSIGN_OR_RETURN(auto file, env.open(path, OpenMode::kCreateNew));
  auto made = [&]() -> v1::Result<std::shared_ptr<MappedFile>> {
    MQKIT_RETURN_IF_ERROR(file->truncate(size));
    MQKIT_ASSIGN_OR_RETURN(auto mapped, map_file(path, start_offset, size, policy, std::move(file)));
    // Only blocks: zeros go ahead of the writer's position, which is still 0.
    std::lock_guard lock(mapped->reserve_mutex_);
    MQKIT_RETURN_IF_ERROR(mapped->reserve_blocks(std::min(policy.min_step, size)));
    mapped->publish_prepared();
    return mapped;
  }();
  if (!made.is_ok()) {
    // Leave no half-made file behind: recovery would have to guess what it is.
    file.reset();
    (void)env.remove_file(path);
  }
  return made;
}

v1::Result<std::shared_ptr<MappedFile>> MappedFile::open(Env& env, const std::string& path,
                                                         std::int64_t start_offset, std::int64_t size,
                                                         Policy policy) {
  MQKIT_ASSIGN_OR_RETURN(auto file, env.open(path, OpenMode::kOpenExisting));
  MQKIT_ASSIGN_OR_RETURN(const std::int64_t actual, file->size());
  if (actual > size) {
    return v1::Status::corruption("file " + path + " is " + std::to_string(actual) + " bytes but the configured size is " +
                                  std::to_string(size) + " (was the mapped file size changed?)");
  }
  if (actual < size) MQKIT_RETURN_IF_ERROR(file->truncate(size));
  return map_file(path, start_offset, size, policy, std::move(file));
}

v1::Status MappedFile::reserve_more(std::int64_t end) noexcept {
  std::lock_guard lock(reserve_mutex_);
  if (end > size_) {
    return v1::Status::internal("a write up to byte " + std::to_string(end) + " of " + path_ + " would pass its end (" +
                                std::to_string(size_) + " bytes)");
  }
  MQKIT_RETURN_IF_ERROR(reserve_blocks(end));
  if (policy_.zero_ahead > 0) MQKIT_RETURN_IF_ERROR(write_zeros_ahead_of(end));
  publish_prepared();
  return v1::Status::ok();
}

v1::Status MappedFile::reserve_blocks(std::int64_t end) noexcept {
  const std::int64_t reserved = reserved_.load(std::memory_order_relaxed);
  if (end > reserved) {
    const std::int64_t step = std::clamp(reserved, policy_.min_step, policy_.max_step);
    const std::int64_t wanted = std::max(end, reserved + step);
    const std::int64_t target = std::min(size_, (wanted + kFlushPageSize - 1) / kFlushPageSize * kFlushPageSize);
    MQKIT_RETURN_IF_ERROR(file_->allocate(reserved, target - reserved));
    reserved_.store(target, std::memory_order_release);
  }
  return v1::Status::ok();
}

void MappedFile::publish_prepared() noexcept {
  const std::int64_t reserved = reserved_.load(std::memory_order_relaxed);
  const bool zeros_due = policy_.zero_ahead > 0 && zeroed_ < size_;
  prepared_.store(zeros_due ? std::min(reserved, zeroed_ - policy_.zero_ahead / 2) : reserved,
                  std::memory_order_release);
}

v1::Status MappedFile::write_zeros_ahead_of(std::int64_t end) noexcept {
  if (zeroed_ >= size_ || end + policy_.zero_ahead / 2 <= zeroed_) return v1::Status::ok();
  const std::int64_t from = std::max(zeroed_, end);
  const std::int64_t to =
      std::min(size_, (end + policy_.zero_ahead + kFlushPageSize - 1) / kFlushPageSize * kFlushPageSize);
  MQKIT_RETURN_IF_ERROR(reserve_blocks(to));
  static constexpr std::uint8_t kZeros[64 * 1024] = {};
  for (std::int64_t at = from; at < to;) {
    const auto length = static_cast<std::size_t>(std::min<std::int64_t>(to - at, sizeof kZeros));
    if (v1::Status written = file_->write_at(at, {kZeros, length}); !written.is_ok()) {
      return written.with_context("writing zeros ahead of the writer");
    }
    at += static_cast<std::int64_t>(length);
  }
  file_->start_writeback(from, to - from);
  zeroed_ = to;
  return v1::Status::ok();
}

v1::Status MappedFile::populate(std::int64_t begin, std::int64_t end) noexcept {
  end = std::min(end, size_);
  if (end <= begin) return v1::Status::ok();
  MQKIT_RETURN_IF_ERROR(reserve_through(end));
  mapping_->populate(begin, end - begin);
  std::int64_t populated = populated_.load(std::memory_order_relaxed);
  while (populated < end && !populated_.compare_exchange_weak(populated, end, std::memory_order_release)) {
  }
  return v1::Status::ok();
}

bool MappedFile::should_flush(std::int64_t least_pages) const noexcept {
  const std::int64_t wrote = wrote_position();
  const std::int64_t flushed = flushed_position();
  if (wrote <= flushed) return false;
  if (wrote >= size_) return true;
  if (least_pages > 0) return wrote / kFlushPageSize - flushed / kFlushPageSize >= least_pages;
  return true;
}

v1::Status MappedFile::flush_to(std::int64_t position) noexcept {
  std::lock_guard lock(flush_mutex_);
  const std::int64_t flushed = flushed_position();
  position = std::min(position, size_);
  if (position <= flushed) return v1::Status::ok();
  MQKIT_RETURN_IF_ERROR(mapping_->sync(flushed, position - flushed));
  flushed_.store(position, std::memory_order_release);
  return v1::Status::ok();
}

void MappedFile::drop_cached(std::int64_t begin, std::int64_t end) noexcept {
  end = std::min(end, flushed_position());
  if (end <= begin) return;
  mapping_->drop_pages(begin, end - begin);
  file_->drop_cached(begin, end - begin);
}

v1::Status MappedFile::sync_all() noexcept {
  std::lock_guard lock(flush_mutex_);
  return mapping_->sync(0, size_);
}

plugin::v1::StoredSlice MappedFile::slice(std::int64_t position, std::int64_t length) {
  return {{data_ + position, static_cast<std::size_t>(length)}, shared_from_this()};
}

v1::Status MappedFile::destroy(Env& env) noexcept {
  if (destroyed_.exchange(true)) return v1::Status::ok();
  return env.remove_file(path_);
}

std::string offset_file_name(std::int64_t offset) {
  char name[32];
  std::snprintf(name, sizeof name, "%020lld", static_cast<long long>(offset));
  return name;
}

bool parse_offset_file_name(std::string_view name, std::int64_t* offset) noexcept {
  if (name.size() != 20) return false;
  for (char c : name) {
    if (c < '0' || c > '9') return false;
  }
  const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), *offset);
  return error == std::errc() && end == name.data() + name.size();
}

std::string join_path(std::string_view dir, std::string_view name) {
  std::string path(dir);
  if (!path.empty() && path.back() != '/') path += '/';
  path += name;
  return path;
}

}  // namespace mqkit::plugins::stores::commitlog
