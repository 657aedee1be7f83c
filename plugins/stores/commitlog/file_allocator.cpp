#include "file_allocator.hpp"

namespace mqkit::plugins::stores::commitlog {

namespace {
// The thread also wakes on its own now and then, in case a request raced with its sleep.
constexpr std::chrono::milliseconds kIdleWait{1000};
}  // namespace

FileAllocator::FileAllocator(Env& env, Logger log, std::string dir, std::int64_t file_size,
                             MappedFile::Policy policy)
    : env_(env), log_(log), dir_(std::move(dir)), file_size_(file_size), policy_(policy) {}

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

v1::Result<std::shared_ptr<MappedFile>> FileAllocator::create(std::int64_t start_offset) {
  MQKIT_RETURN_IF_ERROR(env_.create_dirs(dir_));
  return MappedFile::create(env_, join_path(dir_, offset_file_name(start_offset)), start_offset, file_size_,
                            policy_);
}

void FileAllocator::run() {
  while (!thread_.stopping()) {
    std::int64_t start = -1;
    {
      std::lock_guard lock(mutex_);
      if (requested_ >= 0 && !ready_) {
        start = requested_;
        requested_ = -1;
        creating_ = start;
      }
    }
    if (start < 0) {
      thread_.wait_for(kIdleWait);
      continue;
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
  }
}

}  // namespace mqkit::plugins::stores::commitlog
