#include "mapped_file_queue.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>

namespace mqkit::plugins::stores::commitlog {

MappedFileQueue::MappedFileQueue(Env& env, Logger log, std::string dir, std::int64_t file_size,
                                 MappedFile::Policy policy)
    : env_(env), log_(log), dir_(std::move(dir)), file_size_(file_size), policy_(policy) {}

v1::Status MappedFileQueue::load() {
  auto names = env_.list_dir(dir_);
  if (!names.is_ok()) {
    if (names.status().code() == v1::StatusCode::kNotFound) return v1::Status::ok();
    return names.status();
  }
  std::vector<std::int64_t> offsets;
  for (const auto& name : *names) {
    std::int64_t offset = 0;
    if (parse_offset_file_name(name, &offset)) {
      offsets.push_back(offset);
    } else {
      log_.warn("ignoring " + join_path(dir_, name) + ": not a data file name (20 digits)");
    }
  }
  std::sort(offsets.begin(), offsets.end());
  std::vector<std::shared_ptr<MappedFile>> files;
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    const std::string path = join_path(dir_, offset_file_name(offsets[i]));
    if (offsets[i] % file_size_ != 0) {
      return v1::Status::corruption("file " + path + " does not start at a multiple of the configured file size " +
                                    std::to_string(file_size_) + " (was the mapped file size changed?)");
    }
    if (i > 0 && offsets[i] != offsets[i - 1] + file_size_) {
      return v1::Status::corruption("files of " + dir_ + " are not contiguous: " + offset_file_name(offsets[i - 1]) +
                                    " is followed by " + offset_file_name(offsets[i]));
    }
    MQKIT_ASSIGN_OR_RETURN(auto file, MappedFile::open(env_, path, offsets[i], file_size_, policy_));
    files.push_back(std::move(file));
  }
  std::unique_lock lock(mutex_);
  files_ = std::move(files);
  return v1::Status::ok();
}

bool MappedFileQueue::empty() const {
  std::shared_lock lock(mutex_);
  return files_.empty();
}

std::size_t MappedFileQueue::count() const {
  std::shared_lock lock(mutex_);
  return files_.size();
}

std::shared_ptr<MappedFile> MappedFileQueue::first() const {
  std::shared_lock lock(mutex_);
  return files_.empty() ? nullptr : files_.front();
}

std::shared_ptr<MappedFile> MappedFileQueue::last() const {
  std::shared_lock lock(mutex_);
  return files_.empty() ? nullptr : files_.back();
}

std::shared_ptr<MappedFile> MappedFileQueue::find(std::int64_t offset) const {
  std::shared_lock lock(mutex_);
  if (files_.empty() || offset < files_.front()->start_offset()) return nullptr;
  const auto index = static_cast<std::size_t>((offset - files_.front()->start_offset()) / file_size_);
  if (index >= files_.size()) return nullptr;
  return files_[index];
}

std::vector<std::shared_ptr<MappedFile>> MappedFileQueue::snapshot() const {
  std::shared_lock lock(mutex_);
  return files_;
}

v1::Result<std::shared_ptr<MappedFile>> MappedFileQueue::create_file(std::int64_t start_offset) {
  {
    std::shared_lock lock(mutex_);
    if (start_offset % file_size_ != 0 || (!files_.empty() && start_offset != files_.back()->end_offset())) {
      return v1::Status::internal("a file at offset " + std::to_string(start_offset) + " would not follow the last file of " + dir_);
    }
  }
  MQKIT_RETURN_IF_ERROR(env_.create_dirs(dir_));
  MQKIT_ASSIGN_OR_RETURN(auto file, MappedFile::create(env_, join_path(dir_, offset_file_name(start_offset)),
                                                       start_offset, file_size_, policy_));
  MQKIT_RETURN_IF_ERROR(append_file(file));
  return file;
}

v1::Status MappedFileQueue::append_file(std::shared_ptr<MappedFile> file) {
  std::unique_lock lock(mutex_);
  if (file->start_offset() % file_size_ != 0 ||
      (!files_.empty() && file->start_offset() != files_.back()->end_offset())) {
    return v1::Status::internal("file " + file->path() + " does not follow the last file of " + dir_);
  }
  files_.push_back(std::move(file));
  return v1::Status::ok();
}

std::int64_t MappedFileQueue::min_offset() const {
  std::shared_lock lock(mutex_);
  return files_.empty() ? -1 : files_.front()->start_offset();
}

std::int64_t MappedFileQueue::max_offset() const {
  std::shared_lock lock(mutex_);
  return files_.empty() ? 0 : files_.back()->start_offset() + files_.back()->wrote_position();
}

v1::Result<std::int64_t> MappedFileQueue::truncate_from(std::int64_t offset, bool scrub_tail) {
  std::vector<std::shared_ptr<MappedFile>> dropped;
  std::int64_t dirty = 0;
  {
    std::unique_lock lock(mutex_);
    while (!files_.empty() && files_.back()->start_offset() > offset) {
      dropped.push_back(files_.back());
      files_.pop_back();
    }
    if (!files_.empty()) {
      auto& file = files_.back();
      const std::int64_t position = std::min(offset - file->start_offset(), file->size());
      if (scrub_tail) dirty = scrub(file->data(), position, file->size());
      file->set_wrote_position(position);
      if (file->flushed_position() > position) file->set_flushed_position(position);
      if (dirty > 0) MQKIT_RETURN_IF_ERROR(file->sync_all());
    }
  }
  for (auto& file : dropped) {
    // Every file is written from its start: a file starting with zeros never held data (one the
    // allocator prepared ahead of time), so there is nothing to count in it.
    static constexpr std::uint8_t kEmpty[8] = {};
    if (std::memcmp(file->data(), kEmpty, sizeof kEmpty) != 0) {
      dirty += nonzero_extent(file->data(), 0, file->size());
      log_.warn("removing " + file->path() + ": it lies past the end of the recovered data");
    }
    MQKIT_RETURN_IF_ERROR(file->destroy(env_));
  }
  return dirty;
}

v1::Status MappedFileQueue::remove_first(const std::shared_ptr<MappedFile>& file) {
  {
    std::unique_lock lock(mutex_);
    if (files_.empty() || files_.front() != file) {
      return v1::Status::internal("retention tried to remove " + file->path() + ", which is not the first file");
    }
    files_.erase(files_.begin());
  }
  return file->destroy(env_);
}

v1::Status MappedFileQueue::destroy_all() {
  std::vector<std::shared_ptr<MappedFile>> files;
  {
    std::unique_lock lock(mutex_);
    files.swap(files_);
  }
  for (auto& file : files) MQKIT_RETURN_IF_ERROR(file->destroy(env_));
  return env_.remove_tree(dir_);
}

v1::Status MappedFileQueue::flush_to(std::int64_t offset) {
  for (auto& file : snapshot()) {
    if (file->start_offset() >= offset) break;
    MQKIT_RETURN_IF_ERROR(file->flush_to(offset - file->start_offset()));
  }
  return v1::Status::ok();
}

v1::Result<std::int64_t> MappedFileQueue::flush(std::int64_t least_pages) {
  const auto files = snapshot();
  std::int64_t durable = files.empty() ? 0 : files.front()->start_offset();
  for (const auto& file : files) {
    if (file->should_flush(least_pages)) {
      const std::int64_t wrote = file->wrote_position();
      const bool whole_pages_only = least_pages > 0 && wrote < file->size();
      MQKIT_RETURN_IF_ERROR(file->flush_to(whole_pages_only ? wrote / kFlushPageSize * kFlushPageSize : wrote));
    }
    durable = file->start_offset() + file->flushed_position();
    if (file->flushed_position() < file->size()) break;
  }
  return durable;
}

namespace {

// Distance from `from` to the last nonzero byte of data[from, to); zeroes dirty pages on the way
// when `zero` is set.
std::int64_t visit_nonzero(std::uint8_t* data, std::int64_t from, std::int64_t to, bool zero) noexcept {
  static constexpr std::uint8_t kZeroPage[kFlushPageSize] = {};
  std::int64_t last_dirty = from;
  for (std::int64_t chunk = from; chunk < to;) {
    const std::int64_t end = std::min(to, (chunk / kFlushPageSize + 1) * kFlushPageSize);
    const auto length = static_cast<std::size_t>(end - chunk);
    if (std::memcmp(data + chunk, kZeroPage, length) != 0) {
      std::int64_t i = end;
      while (data[i - 1] == 0) --i;
      last_dirty = std::max(last_dirty, i);
      if (zero) std::memset(data + chunk, 0, length);
    }
    chunk = end;
  }
  return last_dirty - from;
}

}  // namespace

std::int64_t scrub(std::uint8_t* data, std::int64_t from, std::int64_t to) noexcept {
  return visit_nonzero(data, from, to, true);
}

std::int64_t nonzero_extent(const std::uint8_t* data, std::int64_t from, std::int64_t to) noexcept {
  return visit_nonzero(const_cast<std::uint8_t*>(data), from, to, false);
}

}  // namespace mqkit::plugins::stores::commitlog
