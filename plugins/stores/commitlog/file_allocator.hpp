// FileAllocator: prepares the commit log's next file on a background thread (RocketMQ's
// AllocateMappedFileService), so that an append crossing a file boundary takes a ready file
// instead of waiting for the file system to create and map it (and reserve its first chunk).
// With a warm-ahead distance it also keeps the pages ahead of a writer that writes through the
// mapping faulted in (RocketMQ's warmMappedFile, a step ahead at a time), into the prepared next
// file when the distance reaches past the current one: the writer's copies then take no page
// faults, which on a virtual machine cost several times the copy.
//
// Threads: request(), take() and warm_ahead_of() are called under the commit log's put lock;
// the preparation and the warming run on the allocator's own thread. take() waits when the
// file it needs is being prepared.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "env.hpp"
#include "logger.hpp"
#include "mapped_file.hpp"
#include "mqkit/plugin/v1/service_thread.hpp"

namespace mqkit::plugins::stores::commitlog {

class FileAllocator {
 public:
  FileAllocator(Env& env, Logger log, std::string dir, std::int64_t file_size, MappedFile::Policy policy,
                std::int64_t warm_ahead = 0);
  ~FileAllocator();
  FileAllocator(const FileAllocator&) = delete;
  FileAllocator& operator=(const FileAllocator&) = delete;

  void start();
  // Stops the thread and deletes a prepared file nobody took.
  void stop();
  // Asks for the file starting at `start_offset` to be prepared in the background.
  void request(std::int64_t start_offset);
  // The file starting at `start_offset`: the prepared one when it is ready, else made now.
  v1::Result<std::shared_ptr<MappedFile>> take(std::int64_t start_offset);
  // The writer has written `file` up to `position`: warm the pages up to the warm-ahead distance
  // beyond it. Cheap (a wake-up); the work is the allocator thread's.
  void warm_ahead_of(std::shared_ptr<MappedFile> file, std::int64_t position);
  // Bytes of the prepared next file faulted in so far (0 when none is prepared).
  std::int64_t prepared_populated() const;

 private:
  void run();
  // One round of each kind of work; false when there was none.
  bool prepare_requested();
  bool warm_one_step();
  v1::Result<std::shared_ptr<MappedFile>> create(std::int64_t start_offset);

  Env& env_;
  Logger log_;
  const std::string dir_;
  const std::int64_t file_size_;
  const MappedFile::Policy policy_;
  const std::int64_t warm_ahead_;
  mutable std::mutex mutex_;
  std::condition_variable created_;
  std::int64_t requested_ = -1;
  std::int64_t creating_ = -1;
  std::shared_ptr<MappedFile> ready_;
  std::shared_ptr<MappedFile> writing_;  // the file the writer is in (warming), or none
  std::int64_t writing_position_ = 0;
  std::string warm_failed_path_;         // the last file whose warming failed (warned once)
  v1::ServiceThread thread_;
};

}  // namespace mqkit::plugins::stores::commitlog
