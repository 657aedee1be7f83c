// Env: every operating-system call the commit log store makes (files, mappings, directories,
// disk usage, the clock) goes through this small interface, so tests can substitute a
// fault-injecting implementation (fault_env.hpp) and prove that I/O errors surface as Status
// values instead of crashes or silent loss.
//
// Threads: an Env and the File/Mapping objects it returns are safe to use from several threads
// at once as long as two threads do not operate on the same File concurrently, with one
// exception the store relies on: write_at may run while another thread calls allocate (the
// commit service writes the commit log while the writer reserves blocks ahead). Mapping::data()
// may be read and written from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::plugins::stores::commitlog {

namespace v1 = ::mqkit::plugin::v1;

// A shared read-write memory mapping of a file's first size() bytes. Destroying it unmaps.
class Mapping {
 public:
  virtual ~Mapping() = default;
  virtual std::uint8_t* data() noexcept = 0;
  virtual std::int64_t size() const noexcept = 0;
  // Makes [offset, offset + length) durable (msync). The range is widened to whole pages.
  virtual v1::Status sync(std::int64_t offset, std::int64_t length) noexcept = 0;
  // Hint: pages are touched in no particular order, read no further ahead than the page a
  // fault asks for. Best effort; the default ignores it.
  virtual void advise_random() noexcept {}
  // Unmaps the pages of [offset, offset + length) from this mapping (the next access faults them
  // in again from the file), so File::drop_cached can evict them. Best effort; the default
  // ignores it.
  virtual void drop_pages(std::int64_t /*offset*/, std::int64_t /*length*/) noexcept {}
  // Faults the pages of [offset, offset + length) in for writing now (MADV_POPULATE_WRITE), so a
  // later write there takes no page fault. Only for bytes whose disk blocks are reserved. Best
  // effort; the default ignores it.
  virtual void populate(std::int64_t /*offset*/, std::int64_t /*length*/) noexcept {}
};

class File {
 public:
  virtual ~File() = default;
  virtual const std::string& path() const noexcept = 0;
  virtual v1::Result<std::int64_t> size() noexcept = 0;
  // Reserves disk blocks for [offset, offset + length), growing the file when needed, so that
  // writes through a mapping can never fault on a full disk (a full disk fails here, cleanly).
  virtual v1::Status allocate(std::int64_t offset, std::int64_t length) noexcept = 0;
  // Sets the size without reserving blocks (a sparse file when growing).
  virtual v1::Status truncate(std::int64_t length) noexcept = 0;
  virtual v1::Result<std::size_t> read_at(std::int64_t offset, std::span<std::uint8_t> out) noexcept = 0;
  virtual v1::Status write_at(std::int64_t offset, std::span<const std::uint8_t> data) noexcept = 0;
  virtual v1::Status sync() noexcept = 0;
  // Evicts the clean page-cache pages of [offset, offset + length) (posix_fadvise DONTNEED);
  // dirty or still-mapped pages stay. Best effort; the default ignores it.
  virtual void drop_cached(std::int64_t /*offset*/, std::int64_t /*length*/) noexcept {}
  // Starts writing back the dirty pages of [offset, offset + length) without waiting
  // (sync_file_range WRITE). A hint: durability still comes only from sync() or a mapping's sync.
  virtual void start_writeback(std::int64_t /*offset*/, std::int64_t /*length*/) noexcept {}
  virtual v1::Result<std::unique_ptr<Mapping>> map(std::int64_t length) noexcept = 0;
  // Takes an exclusive advisory lock (flock) without waiting; Unavailable when another open file
  // description holds it. Released when the File is destroyed.
  virtual v1::Status try_lock() noexcept = 0;
};

enum class OpenMode : std::uint8_t {
  kOpenExisting,    // NotFound when absent
  kCreateIfMissing, // opens or creates
  kCreateNew,       // AlreadyExists when present
};

struct DiskUsage {
  std::int64_t total_bytes = 0;
  std::int64_t available_bytes = 0;
  double used_ratio() const noexcept {
    return total_bytes <= 0 ? 0.0
                            : static_cast<double>(total_bytes - available_bytes) / static_cast<double>(total_bytes);
  }
};

class Env {
 public:
  virtual ~Env() = default;
  virtual v1::Result<std::unique_ptr<File>> open(const std::string& path, OpenMode mode) noexcept = 0;
  virtual v1::Status rename(const std::string& from, const std::string& to) noexcept = 0;
  virtual v1::Status remove_file(const std::string& path) noexcept = 0;
  // Removes a directory and everything below it; OK when it does not exist.
  virtual v1::Status remove_tree(const std::string& path) noexcept = 0;
  virtual v1::Status create_dirs(const std::string& path) noexcept = 0;
  // Names (not paths) of the entries of a directory; NotFound when it does not exist.
  virtual v1::Result<std::vector<std::string>> list_dir(const std::string& path) noexcept = 0;
  virtual bool exists(const std::string& path) noexcept = 0;
  virtual bool is_directory(const std::string& path) noexcept = 0;
  virtual v1::Result<std::int64_t> modified_time_ms(const std::string& path) noexcept = 0;
  virtual v1::Result<DiskUsage> disk_usage(const std::string& path) noexcept = 0;
  // Makes a directory's entries (creations, renames, removals) durable.
  virtual v1::Status sync_dir(const std::string& path) noexcept = 0;
  // Wall-clock milliseconds since the epoch (store timestamps, file names, retention).
  virtual std::int64_t now_ms() noexcept = 0;
};

// The real thing: POSIX calls on the local file system. One shared instance per process.
std::shared_ptr<Env> posix_env();

// Reads a whole (small) file; NotFound when it does not exist.
v1::Result<std::string> read_small_file(Env& env, const std::string& path);
// Writes `content` to a new file at `path` (replacing it) and syncs it.
v1::Status write_small_file(Env& env, const std::string& path, std::string_view content);

}  // namespace mqkit::plugins::stores::commitlog
