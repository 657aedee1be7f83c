#include "mqkit/kernel/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace mqkit::kernel {

using plugin::v1::Result;
using plugin::v1::Status;
namespace fs = std::filesystem;

namespace {

Status errno_status(std::string_view what, const fs::path& path) {
  return Status::io_error(std::string(what) + " " + path.string() + ": " + std::strerror(errno));
}

Status fsync_path(const fs::path& path, int flags) {
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0) return errno_status("cannot open", path);
  const int rc = ::fsync(fd);
  const int saved = errno;
  ::close(fd);
  errno = saved;
  return rc == 0 ? Status::ok() : errno_status("cannot fsync", path);
}

}  // namespace

Status write_file_atomically(const fs::path& path, std::string_view content) {
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  const fs::path tmp = path.string() + ".tmp";
  {
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return errno_status("cannot create", tmp);
    std::size_t written = 0;
    while (written < content.size()) {
      const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        const Status s = errno_status("cannot write", tmp);
        ::close(fd);
        return s;
      }
      written += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0) {
      const Status s = errno_status("cannot fsync", tmp);
      ::close(fd);
      return s;
    }
    ::close(fd);
  }
  if (fs::exists(path, ec)) {
    fs::copy_file(path, path.string() + ".bak", fs::copy_options::overwrite_existing, ec);
    if (ec) return Status::io_error("cannot keep backup of " + path.string() + ": " + ec.message());
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) return errno_status("cannot rename over", path);
  return path.has_parent_path() ? fsync_path(path.parent_path(), O_RDONLY | O_DIRECTORY) : Status::ok();
}

Result<std::optional<std::string>> read_file_with_backup(const fs::path& path) {
  for (const fs::path& candidate : {path, fs::path(path.string() + ".bak")}) {
    std::ifstream in(candidate, std::ios::binary);
    if (!in) {
      if (errno == ENOENT) continue;
      return errno_status("cannot open", candidate);
    }
    std::ostringstream text;
    text << in.rdbuf();
    return std::optional<std::string>(text.str());
  }
  return std::optional<std::string>();
}

}  // namespace mqkit::kernel
