#include "env.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace mqkit::plugins::stores::commitlog {

namespace {

std::string errno_text(int error) { return std::strerror(error); }

v1::Status io_error(std::string_view what, const std::string& path, int error) {
  std::string message = std::string(what) + " " + path + ": " + errno_text(error);
  if (error == EMFILE) {
    // Every mapped file (consume queues, commit log, index) holds a descriptor: name the limit.
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) == 0) {
      message += " (the open files limit is " + std::to_string(limit.rlim_cur) +
                 "; each consume queue, commit log and index file holds one: raise LimitNOFILE or ulimit -n)";
    }
  }
  return v1::Status::io_error(std::move(message));
}

std::int64_t page_size() {
  static const std::int64_t size = [] {
    const long value = ::sysconf(_SC_PAGESIZE);
    return value > 0 ? static_cast<std::int64_t>(value) : 4096;
  }();
  return size;
}

#ifdef MADV_POPULATE_WRITE
constexpr int kPopulateWrite = MADV_POPULATE_WRITE;
#else
constexpr int kPopulateWrite = 23;  // Linux's value, for C libraries older than the advice
#endif

std::atomic<bool>& populate_supported() {
  static std::atomic<bool> supported{true};
  return supported;
}

class PosixMapping final : public Mapping {
 public:
  PosixMapping(std::string path, std::uint8_t* data, std::int64_t size)
      : path_(std::move(path)), data_(data), size_(size) {}
  ~PosixMapping() override { ::munmap(data_, static_cast<std::size_t>(size_)); }
  PosixMapping(const PosixMapping&) = delete;
  PosixMapping& operator=(const PosixMapping&) = delete;

  std::uint8_t* data() noexcept override { return data_; }
  std::int64_t size() const noexcept override { return size_; }

  v1::Status sync(std::int64_t offset, std::int64_t length) noexcept override {
    if (length <= 0) return v1::Status::ok();
    const std::int64_t begin = offset / page_size() * page_size();
    const std::int64_t end = std::min(offset + length, size_);
    if (::msync(data_ + begin, static_cast<std::size_t>(end - begin), MS_SYNC) != 0) {
      return io_error("msync", path_, errno);
    }
    return v1::Status::ok();
  }

  void advise_random() noexcept override { (void)::madvise(data_, static_cast<std::size_t>(size_), MADV_RANDOM); }

  void drop_pages(std::int64_t offset, std::int64_t length) noexcept override {
    const std::int64_t begin = (offset + page_size() - 1) / page_size() * page_size();
    const std::int64_t end = std::min(offset + length, size_) / page_size() * page_size();
    // A shared file mapping: MADV_DONTNEED only drops this process's page-table entries.
    if (end > begin) (void)::madvise(data_ + begin, static_cast<std::size_t>(end - begin), MADV_DONTNEED);
  }

  void populate(std::int64_t offset, std::int64_t length) noexcept override {
    const std::int64_t begin = offset / page_size() * page_size();
    const std::int64_t end = std::min(offset + length, size_);
    if (end <= begin || !populate_supported().load(std::memory_order_relaxed)) return;
    // Kernels before 5.14 do not know the advice (EINVAL): stop asking. Other errors (no memory
    // now) leave the pages to be faulted in by the writer, as without this call.
    if (::madvise(data_ + begin, static_cast<std::size_t>(end - begin), kPopulateWrite) != 0 && errno == EINVAL) {
      populate_supported().store(false, std::memory_order_relaxed);
    }
  }

 private:
  std::string path_;
  std::uint8_t* data_;
  std::int64_t size_;
};

class PosixFile final : public File {
 public:
  PosixFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixFile() override { ::close(fd_); }
  PosixFile(const PosixFile&) = delete;
  PosixFile& operator=(const PosixFile&) = delete;

  const std::string& path() const noexcept override { return path_; }

  v1::Result<std::int64_t> size() noexcept override {
    struct stat st {};
    if (::fstat(fd_, &st) != 0) return io_error("stat", path_, errno);
    return static_cast<std::int64_t>(st.st_size);
  }

  v1::Status allocate(std::int64_t offset, std::int64_t length) noexcept override {
    // posix_fallocate returns the error instead of setting errno.
    const int error = ::posix_fallocate(fd_, offset, length);
    if (error != 0) return io_error("allocating " + std::to_string(length) + " bytes for", path_, error);
    return v1::Status::ok();
  }

  v1::Status truncate(std::int64_t length) noexcept override {
    if (::ftruncate(fd_, length) != 0) return io_error("truncating", path_, errno);
    return v1::Status::ok();
  }

  v1::Result<std::size_t> read_at(std::int64_t offset, std::span<std::uint8_t> out) noexcept override {
    std::size_t done = 0;
    while (done < out.size()) {
      const ssize_t n = ::pread(fd_, out.data() + done, out.size() - done, offset + static_cast<std::int64_t>(done));
      if (n < 0) {
        if (errno == EINTR) continue;
        return io_error("reading", path_, errno);
      }
      if (n == 0) break;
      done += static_cast<std::size_t>(n);
    }
    return done;
  }

  v1::Status write_at(std::int64_t offset, std::span<const std::uint8_t> data) noexcept override {
    std::size_t done = 0;
    while (done < data.size()) {
      const ssize_t n = ::pwrite(fd_, data.data() + done, data.size() - done, offset + static_cast<std::int64_t>(done));
      if (n < 0) {
        if (errno == EINTR) continue;
        return io_error("writing", path_, errno);
      }
      done += static_cast<std::size_t>(n);
    }
    return v1::Status::ok();
  }

  v1::Status sync() noexcept override {
    if (::fdatasync(fd_) != 0) return io_error("fsync", path_, errno);
    return v1::Status::ok();
  }

  void drop_cached(std::int64_t offset, std::int64_t length) noexcept override {
    (void)::posix_fadvise(fd_, offset, length, POSIX_FADV_DONTNEED);
  }

  void start_writeback(std::int64_t offset, std::int64_t length) noexcept override {
    (void)::sync_file_range(fd_, offset, length, SYNC_FILE_RANGE_WRITE);
  }

  v1::Result<std::unique_ptr<Mapping>> map(std::int64_t length) noexcept override {
    void* data = ::mmap(nullptr, static_cast<std::size_t>(length), PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    if (data == MAP_FAILED) return io_error("mmap", path_, errno);
    return std::unique_ptr<Mapping>(std::make_unique<PosixMapping>(path_, static_cast<std::uint8_t*>(data), length));
  }

  v1::Status try_lock() noexcept override {
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return v1::Status::ok();
    if (errno == EWOULDBLOCK) {
      return v1::Status::unavailable("lock file " + path_ + " is held by another process (or another store in this "
                                     "process): the store directory is already open");
    }
    return io_error("locking", path_, errno);
  }

 private:
  std::string path_;
  int fd_;
};

class PosixEnv final : public Env {
 public:
  v1::Result<std::unique_ptr<File>> open(const std::string& path, OpenMode mode) noexcept override {
    int flags = O_RDWR | O_CLOEXEC;
    if (mode == OpenMode::kCreateIfMissing) flags |= O_CREAT;
    if (mode == OpenMode::kCreateNew) flags |= O_CREAT | O_EXCL;
    const int fd = ::open(path.c_str(), flags, 0644);
    if (fd < 0) {
      const int error = errno;
      if (error == ENOENT && mode == OpenMode::kOpenExisting) return v1::Status::not_found("no file " + path);
      if (error == EEXIST) return v1::Status::already_exists("file " + path + " already exists");
      return io_error("opening", path, error);
    }
    return std::unique_ptr<File>(std::make_unique<PosixFile>(path, fd));
  }

  v1::Status rename(const std::string& from, const std::string& to) noexcept override {
    if (::rename(from.c_str(), to.c_str()) != 0) return io_error("renaming to " + to + ":", from, errno);
    return v1::Status::ok();
  }

  v1::Status remove_file(const std::string& path) noexcept override {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) return io_error("removing", path, errno);
    return v1::Status::ok();
  }

  v1::Status remove_tree(const std::string& path) noexcept override {
    std::error_code error;
    std::filesystem::remove_all(path, error);
    if (error) return v1::Status::io_error("removing " + path + ": " + error.message());
    return v1::Status::ok();
  }

  v1::Status create_dirs(const std::string& path) noexcept override {
    std::error_code error;
    std::filesystem::create_directories(path, error);
    if (error) return v1::Status::io_error("creating directory " + path + ": " + error.message());
    return v1::Status::ok();
  }

  v1::Result<std::vector<std::string>> list_dir(const std::string& path) noexcept override {
    DIR* dir = ::opendir(path.c_str());
    if (dir == nullptr) {
      if (errno == ENOENT) return v1::Status::not_found("no directory " + path);
      return io_error("listing", path, errno);
    }
    std::vector<std::string> names;
    while (const dirent* entry = ::readdir(dir)) {
      const std::string_view name = entry->d_name;
      if (name != "." && name != "..") names.emplace_back(name);
    }
    ::closedir(dir);
    return names;
  }

  bool exists(const std::string& path) noexcept override { return ::access(path.c_str(), F_OK) == 0; }

  bool is_directory(const std::string& path) noexcept override {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  }

  v1::Result<std::int64_t> modified_time_ms(const std::string& path) noexcept override {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return io_error("stat", path, errno);
    return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1'000'000;
  }

  v1::Result<DiskUsage> disk_usage(const std::string& path) noexcept override {
    struct statvfs st {};
    if (::statvfs(path.c_str(), &st) != 0) return io_error("statvfs", path, errno);
    DiskUsage usage;
    usage.total_bytes = static_cast<std::int64_t>(st.f_blocks) * static_cast<std::int64_t>(st.f_frsize);
    usage.available_bytes = static_cast<std::int64_t>(st.f_bavail) * static_cast<std::int64_t>(st.f_frsize);
    return usage;
  }

  v1::Status sync_dir(const std::string& path) noexcept override {
    const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return io_error("opening directory", path, errno);
    const int result = ::fsync(fd);
    const int error = errno;
    ::close(fd);
    if (result != 0) return io_error("fsync of directory", path, error);
    return v1::Status::ok();
  }

  std::int64_t now_ms() noexcept override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace

std::shared_ptr<Env> posix_env() {
  static const auto env = std::make_shared<PosixEnv>();
  return env;
}

v1::Result<std::string> read_small_file(Env& env, const std::string& path) {
  MQKIT_ASSIGN_OR_RETURN(auto file, env.open(path, OpenMode::kOpenExisting));
  MQKIT_ASSIGN_OR_RETURN(const std::int64_t size, file->size());
  std::string content(static_cast<std::size_t>(size), '\0');
  MQKIT_ASSIGN_OR_RETURN(const std::size_t read,
                         file->read_at(0, {reinterpret_cast<std::uint8_t*>(content.data()), content.size()}));
  content.resize(read);
  return content;
}

v1::Status write_small_file(Env& env, const std::string& path, std::string_view content) {
  MQKIT_ASSIGN_OR_RETURN(auto file, env.open(path, OpenMode::kCreateIfMissing));
  MQKIT_RETURN_IF_ERROR(file->truncate(0));
  MQKIT_RETURN_IF_ERROR(file->write_at(0, {reinterpret_cast<const std::uint8_t*>(content.data()), content.size()}));
  return file->sync();
}

}  // namespace mqkit::plugins::stores::commitlog
