// TransientStorePool: the anonymous write buffer the commit log appends into when
// transient_store_pool_enable is set (RocketMQ's TransientStorePool + the commit step of its
// MappedFile). The writer copies records here instead of into the mapped file, so it never
// takes the kernel's first-touch fault of a fresh page-cache page; the commit service later
// copies committed bytes into the file with pwrite, in large pieces and off the put lock.
//
// Layout: a ring of `buffers` buffers of `buffer_size` bytes each, one contiguous allocation
// whose pages are touched (and, best effort, locked) once at construction. Commit log offset o
// lives at ring[o % size()]: the bytes of [committed, written) are in the ring, so a writer may
// only place bytes below committed + size(). RocketMQ's buffers are whole commit log files
// (5 x 1 GiB by default); here a buffer is at most kMaxBufferSize, so the default pool is
// 5 x 4 MiB = 20 MiB, in transparent huge pages where the kernel allows them.
//
// Threads: the writer (under the put lock) writes bytes at offsets nobody reads; the committer
// (under the commit lock) reads bytes the writer published. The ring itself has no lock: the
// commit log's written/committed offsets, published with release/acquire, keep the two apart.
// A reader of a record not yet committed (CommitLog::read_record) copies it out under the commit
// lock: while no commit runs, the writer cannot reuse bytes at or above the committed offset.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::plugins::stores::commitlog {

namespace v1 = ::mqkit::plugin::v1;

class TransientStorePool {
 public:
  static constexpr std::int64_t kMaxBufferSize = 4LL << 20;

  // `buffers` buffers of min(kMaxBufferSize, commit log file size) bytes.
  static v1::Result<std::unique_ptr<TransientStorePool>> create(std::int64_t buffers, std::int64_t file_size);
  ~TransientStorePool();
  TransientStorePool(const TransientStorePool&) = delete;
  TransientStorePool& operator=(const TransientStorePool&) = delete;

  std::int64_t size() const noexcept { return size_; }
  bool locked() const noexcept { return locked_; }

  // Copies `bytes` to the ring at commit log offset `offset` (wrapping at the end of the ring).
  void put(std::int64_t offset, std::span<const std::uint8_t> bytes) noexcept;
  // The bytes at [offset, offset + length), cut short where the ring wraps.
  std::span<const std::uint8_t> view(std::int64_t offset, std::int64_t length) const noexcept;
  // Copies the bytes at offset [offset, offset + out.size()) out (wrapping).
  void copy_out(std::int64_t offset, std::span<std::uint8_t> out) const noexcept;

 private:
  TransientStorePool(std::uint8_t* data, std::int64_t size, bool locked) noexcept
      : data_(data), size_(size), locked_(locked) {}

  std::uint8_t* data_;
  std::int64_t size_;
  bool locked_;
};

}  // namespace mqkit::plugins::stores::commitlog
