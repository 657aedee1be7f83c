#include "transient_store_pool.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

namespace mqkit::plugins::stores::commitlog {

v1::Result<std::unique_ptr<TransientStorePool>> TransientStorePool::create(std::int64_t buffers,
                                                                           std::int64_t file_size) {
  if (buffers <= 0 || file_size <= 0) return v1::Status::invalid_argument("a transient store pool needs buffers");
  const std::int64_t size = buffers * std::min(kMaxBufferSize, file_size);
  void* data = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                      -1, 0);
  if (data == MAP_FAILED) {
    return v1::Status::io_error("allocating a transient store pool of " + std::to_string(size) +
                                " bytes: " + std::strerror(errno));
  }
  // Huge pages where the kernel allows them (THP "madvise" or "always"): the writer's copy and
  // the committer's pwrite sweep the whole ring, and with 4 KiB pages every 4 KiB of records
  // costs each of them a TLB miss (nested paging in a VM makes those dear). 1 KiB appends went
  // from a median 1.13 M to 1.23 M msg/s (bench/RESULTS.md, 2026-11-30 07:11).
  (void)::madvise(data, static_cast<std::size_t>(size), MADV_HUGEPAGE);
  // Touch every page now: the point of the pool is that appends never fault a page in.
  std::memset(data, 0, static_cast<std::size_t>(size));
  // RocketMQ locks its pool too; without the privilege (RLIMIT_MEMLOCK) the pages are merely
  // resident, which is what matters while the machine has memory to spare.
  const bool locked = ::mlock(data, static_cast<std::size_t>(size)) == 0;
  return std::unique_ptr<TransientStorePool>(new TransientStorePool(static_cast<std::uint8_t*>(data), size, locked));
}

TransientStorePool::~TransientStorePool() { ::munmap(data_, static_cast<std::size_t>(size_)); }

void TransientStorePool::put(std::int64_t offset, std::span<const std::uint8_t> bytes) noexcept {
  while (!bytes.empty()) {
    const std::int64_t at = offset % size_;
    const auto length = static_cast<std::size_t>(std::min<std::int64_t>(size_ - at, static_cast<std::int64_t>(bytes.size())));
    std::memcpy(data_ + at, bytes.data(), length);
    bytes = bytes.subspan(length);
    offset += static_cast<std::int64_t>(length);
  }
}

void TransientStorePool::copy_out(std::int64_t offset, std::span<std::uint8_t> out) const noexcept {
  while (!out.empty()) {
    const auto piece = view(offset, static_cast<std::int64_t>(out.size()));
    std::memcpy(out.data(), piece.data(), piece.size());
    out = out.subspan(piece.size());
    offset += static_cast<std::int64_t>(piece.size());
  }
}

std::span<const std::uint8_t> TransientStorePool::view(std::int64_t offset, std::int64_t length) const noexcept {
  const std::int64_t at = offset % size_;
  return {data_ + at, static_cast<std::size_t>(std::min(length, size_ - at))};
}

}  // namespace mqkit::plugins::stores::commitlog
