// FileAllocator: prepares the commit log's next file on a background thread (RocketMQ's
// AllocateMappedFileService), so that an append crossing a file boundary takes a ready file
// instead of waiting for the file system to create and map it (and reserve its first chunk).
//
// Threads: request() and take() are called under the commit log's put lock; the preparation
// runs on the allocator's own thread. take() waits when the file it needs is being prepared.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "env.hpp"
#include "logger.hpp"
#include "mapped_file.hpp"
#include "service_thread.hpp"

namespace mqkit::plugins::stores::commitlog {

class FileAllocator {
 public:
  FileAllocator(Env& env, Logger log, std::string dir, std::int64_t file_size, MappedFile::Policy policy);
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

 private:
  void run();
  v1::Result<std::shared_ptr<MappedFile>> create(std::int64_t start_offset);

  Env& env_;
  Logger log_;
  const std::string dir_;
  const std::int64_t file_size_;
  const MappedFile::Policy policy_;
  std::mutex mutex_;
  std::condition_variable created_;
  std::int64_t requested_ = -1;
  std::int64_t creating_ = -1;
  std::shared_ptr<MappedFile> ready_;
  ServiceThread thread_;
};

}  // namespace mqkit::plugins::stores::commitlog
