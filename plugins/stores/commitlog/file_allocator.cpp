#include "file_allocator.hpp"

#include <algorithm>

namespace mqkit::plugins::stores::commitlog {

namespace {
// The thread also wakes on its own now and then, in case a request raced with its sleep.
constexpr std::chrono::milliseconds kIdleWait{1000};
// Pages are warmed this much at a time, aligned, so the page cache can use its largest folios
// and a stop or a file request waits for at most one step.
constexpr std::int64_t kWarmStep = 2LL << 20;
}  // namespace

FileAllocator::FileAllocator(Env& env, Logger log, std::string dir, std::int64_t file_size,
                             MappedFile::Policy policy, std::int64_t warm_ahead)
    : env_(env), log_(log), dir_(std::move(dir)), file_size_(file_size), policy_(policy), warm_ahead_(warm_ahead) {}

FileAllocator::~FileAllocator() { stop(); }

void FileAllocator::start() {
  thread_.start("AllocateMapFile", [this] { run(); });
}

void FileAllocator::stop() {
  thread_.stop();
  std::shared_ptr<MappedFile> unused;
  {
    std::lock_guard lock(mutex_);
    unused.swap(ready_);
    requested_ = -1;
    writing_.reset();
  }
  if (unused) (void)unused->destroy(env_);
}

void FileAllocator::request(std::int64_t start_offset) {
  {
    std::lock_guard lock(mutex_);
    if ((ready_ && ready_->start_offset() == start_offset) || creating_ == start_offset) return;
    requested_ = start_offset;
  }
  thread_.wakeup();
}

v1::Result<std::shared_ptr<MappedFile>> FileAllocator::take(std::int64_t start_offset) {
  std::shared_ptr<MappedFile> stale;
  {
    std::unique_lock lock(mutex_);
    created_.wait(lock, [&] { return creating_ != start_offset; });
    if (ready_ && ready_->start_offset() == start_offset) {
      auto file = std::move(ready_);
      ready_.reset();
      return file;
    }
    stale.swap(ready_);
    if (requested_ == start_offset) requested_ = -1;
  }
  if (stale) (void)stale->destroy(env_);
  return create(start_offset);
}

void FileAllocator::warm_ahead_of(std::shared_ptr<MappedFile> file, std::int64_t position) {
  if (warm_ahead_ <= 0) return;
  {
    std::lock_guard lock(mutex_);
    writing_ = std::move(file);
    writing_position_ = position;
  }
  thread_.wakeup();
}

std::int64_t FileAllocator::prepared_populated() const {
  std::lock_guard lock(mutex_);
  return ready_ ? ready_->populated() : 0;
}

v1::Result<std::shared_ptr<MappedFile>> FileAllocator::create(std::int64_t start_offset) {
  MQKIT_RETURN_IF_ERROR(env_.create_dirs(dir_));
  return MappedFile::create(env_, join_path(dir_, offset_file_name(start_offset)), start_offset, file_size_,
                            policy_);
}

void FileAllocator::run() {
  while (!thread_.stopping()) {
    if (!prepare_requested() && !warm_one_step()) thread_.wait_for(kIdleWait);
  }
}

bool FileAllocator::prepare_requested() {
  std::int64_t start = -1;
  {
    std::lock_guard lock(mutex_);
    if (requested_ < 0 || ready_) return false;
    start = requested_;
    requested_ = -1;
    creating_ = start;
  }
  auto file = create(start);
  {
    std::lock_guard lock(mutex_);
    if (file.is_ok()) {
      ready_ = std::move(file).value();
    } else {
      log_.warn("could not prepare commit log file " + offset_file_name(start) + " ahead of time: " +
                file.status().to_string());
    }
    creating_ = -1;
  }
  created_.notify_all();
  return true;
}

bool FileAllocator::warm_one_step() {
  std::shared_ptr<MappedFile> file;
  std::int64_t from = 0;
  std::int64_t to = 0;
  {
    std::lock_guard lock(mutex_);
    if (!writing_) return false;
    const std::int64_t target = writing_position_ + warm_ahead_;
    if (const std::int64_t begin = std::max(writing_->populated(), writing_position_);
        begin < std::min(target, writing_->size())) {
      file = writing_;
      from = begin;
      to = std::min(target, writing_->size());
    } else if (target > writing_->size() && ready_ && ready_->start_offset() == writing_->end_offset() &&
               ready_->populated() < target - writing_->size()) {
      file = ready_;
      from = ready_->populated();
      to = target - writing_->size();
    } else {
      return false;
    }
  }
  to = std::min(to, (from / kWarmStep + 1) * kWarmStep);
  if (v1::Status warmed = file->populate(from, to); !warmed.is_ok()) {
    // The writer's own reservation reports a full disk where it matters; warming stops until
    // the writer moves on.
    std::lock_guard lock(mutex_);
    if (warm_failed_path_ != file->path()) {
      warm_failed_path_ = file->path();
      log_.warn("could not warm the pages ahead of the commit log writer in " + file->path() + ": " +
                warmed.to_string());
    }
    if (writing_ == file) writing_.reset();
    return false;
  }
  return true;
}

}  // namespace mqkit::plugins::stores::commitlog
