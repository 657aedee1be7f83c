#include "mqkit/kernel/resource_limits.hpp"

#include <sys/resource.h>

#include <fstream>

#include "mqkit/kernel/logging.hpp"

namespace mqkit::kernel {

namespace {

// RLIM_INFINITY is refused for RLIMIT_NOFILE: the ceiling is fs.nr_open.
std::uint64_t nr_open() {
  std::ifstream in("/proc/sys/fs/nr_open");
  std::uint64_t value = 0;
  return in >> value ? value : 1u << 20;
}

}  // namespace

OpenFilesLimit raise_open_files_limit() {
  OpenFilesLimit result;
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return result;
  result.before = result.after = limit.rlim_cur;
  result.hard = limit.rlim_max;
  const rlim_t wanted = limit.rlim_max == RLIM_INFINITY ? nr_open() : limit.rlim_max;
  auto log = logger("kernel");
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < wanted) {
    rlimit raised = limit;
    raised.rlim_cur = wanted;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) {
      result.after = wanted;
      log->info("open files limit raised from {} to {} (the hard limit)", result.before, result.after);
      return result;
    }
  }
  log->info("open files limit {}", result.after);
  return result;
}

}  // namespace mqkit::kernel
