// MappedFileQueue: the ordered, contiguous run of equally sized MappedFiles in one directory
// (RocketMQ's MappedFileQueue): the commit log, or one consume queue. File N+1 starts where
// file N ends; a file is found by arithmetic on its offset.
//
// Threads: the list is guarded by a shared mutex. The owner's single writer appends files;
// retention removes files from the front; recovery truncates; readers look files up from any
// thread and keep what they found alive by its shared_ptr.
#pragma once

#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <string>
#include <vector>

#include "env.hpp"
#include "logger.hpp"
#include "mapped_file.hpp"

namespace mqkit::plugins::stores::commitlog {

class MappedFileQueue {
 public:
  MappedFileQueue(Env& env, Logger log, std::string dir, std::int64_t file_size, MappedFile::Policy policy);

  const std::string& dir() const noexcept { return dir_; }
  std::int64_t file_size() const noexcept { return file_size_; }

  // Opens every file named by a 20-digit offset in the directory (other names are ignored with a
  // warning). Positions are left at 0: the owner's recovery decides how much of each file is
  // valid. Corruption when the files are not contiguous.
  v1::Status load();

  bool empty() const;
  std::size_t count() const;
  std::shared_ptr<MappedFile> first() const;
  std::shared_ptr<MappedFile> last() const;
  // The file holding `offset`, or nullptr.
  std::shared_ptr<MappedFile> find(std::int64_t offset) const;
  std::vector<std::shared_ptr<MappedFile>> snapshot() const;

  // Creates the file that starts at `start_offset` and appends it: the first file of an empty
  // queue may start anywhere (a multiple of the file size); later ones must follow the last.
  v1::Result<std::shared_ptr<MappedFile>> create_file(std::int64_t start_offset);
  // Appends a file created elsewhere (the commit log's pre-allocated next file).
  v1::Status append_file(std::shared_ptr<MappedFile> file);

  // Offset of the first byte held (-1 when empty), and the end of what was written.
  std::int64_t min_offset() const;
  std::int64_t max_offset() const;

  // Makes `offset` the end of the data: files starting after it are deleted and the file holding
  // it gets wrote = offset - start. With `scrub_tail`, nonzero bytes after `offset` in that file
  // are zeroed (and flushed) so that a later recovery cannot mistake them for data. Returns how
  // many nonzero bytes lay past the end (what a torn or corrupt tail held).
  v1::Result<std::int64_t> truncate_from(std::int64_t offset, bool scrub_tail = true);

  // Removes the first file (retention). The caller has decided it may go.
  v1::Status remove_first(const std::shared_ptr<MappedFile>& file);
  // Deletes every file and the directory (a consume queue of a deleted topic).
  v1::Status destroy_all();

  // Flushes every file up to `offset`.
  v1::Status flush_to(std::int64_t offset);
  // Flushes files holding at least `least_pages` dirty pages (0 = any dirty byte); returns the
  // offset below which everything is now on disk. With `least_pages` > 0 only whole pages of a
  // file still being written are flushed: the page its writer is filling is left dirty, because
  // msync write-protects it and the writer's next store into it would wait for the I/O
  // (these files are mapped without read-ahead, so their page-cache folios are single pages).
  v1::Result<std::int64_t> flush(std::int64_t least_pages);

 private:
  Env& env_;
  Logger log_;
  const std::string dir_;
  const std::int64_t file_size_;
  const MappedFile::Policy policy_;
  mutable std::shared_mutex mutex_;
  std::vector<std::shared_ptr<MappedFile>> files_;
};

// Zeroes the nonzero bytes of data[from, to) page by page and returns the distance from `from`
// to the last nonzero byte (0 when the range was already clean).
std::int64_t scrub(std::uint8_t* data, std::int64_t from, std::int64_t to) noexcept;
// The same distance, without zeroing anything.
std::int64_t nonzero_extent(const std::uint8_t* data, std::int64_t from, std::int64_t to) noexcept;

}  // namespace mqkit::plugins::stores::commitlog
