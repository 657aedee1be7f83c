// Process limits a server adjusts at start. A broker holds one descriptor per mapped file (each
// consume queue, commit log and index file) besides its connections, so Debian's default soft
// limit of 1,024 open files stops it near a thousand queues; the JVM raises its soft limit to the
// hard one at start (HotSpot's MaxFDLimit), so RocketMQ's brokers never meet it.
#pragma once

#include <cstdint>

namespace mqkit::kernel {

struct OpenFilesLimit {
  std::uint64_t before = 0;  // the soft limit as the process started
  std::uint64_t after = 0;   // the soft limit now
  std::uint64_t hard = 0;
};

// Raises the soft RLIMIT_NOFILE to the hard limit (as far as the kernel allows) and logs the
// limit in force.
OpenFilesLimit raise_open_files_limit();

}  // namespace mqkit::kernel
