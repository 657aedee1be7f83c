// FaultEnv: an Env that wraps another and fails chosen operations on demand, for tests that
// prove I/O errors come back as Status values (never crashes, never silent loss):
//
//   fail_writes(part)   write_at / allocate / truncate of paths containing `part` fail (EIO)
//   fail_syncs(part)    fsync / msync of such paths fail (EIO)
//   fail_reads(part)    read_at (pread) of such paths fails (EIO)
//   set_disk_full(on)   anything that needs new blocks fails with ENOSPC and disk_usage reports
//                       a full disk
//   set_disk_used_ratio disk_usage reports this ratio (disk-full thresholds without a full disk)
//   set_sync_delay(d)   every fsync / msync first sleeps `d` (a slow or stuck disk)
//   set_now_ms(t)       the clock the store reads (store timestamps, index file names)
//
// With `PowerLoss` other than kNone the env also models the page cache of every mapped file: a
// private copy of the file that writes through the mapping and pwrites (write_at, as the
// transient store pool's commit does) both change, and that only msync or fsync writes back.
// When the file and its mapping go away without being synced (the store was dropped, as in
// simulate_crash + destroy), unsynced pages are lost — all of them (kLoseUnsynced), or a random
// subset survives (kRandomPages: the kernel wrote some back before the power went, in no
// particular order).
//
// It also counts syncs, so tests can see group commit share one flush among many writers.
//
// Threads: all methods are thread-safe; faults may be switched while the store runs.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "env.hpp"

namespace mqkit::plugins::stores::commitlog {

class FaultEnv final : public Env {
 public:
  enum class PowerLoss : std::uint8_t { kNone, kLoseUnsynced, kRandomPages };

  explicit FaultEnv(std::shared_ptr<Env> base = posix_env(), PowerLoss power_loss = PowerLoss::kNone,
                    std::uint32_t seed = 1);

  void fail_writes(std::string path_part = "");
  void fail_syncs(std::string path_part = "");
  void fail_reads(std::string path_part = "");
  void set_disk_full(bool full);
  void set_disk_used_ratio(std::optional<double> ratio);
  void set_sync_delay(std::chrono::milliseconds delay);
  void set_now_ms(std::optional<std::int64_t> now);
  // Clears every fault (the clock and the counters stay).
  void heal();

  std::int64_t syncs() const noexcept { return state_->syncs.load(); }
  std::int64_t injected_failures() const noexcept { return state_->injected.load(); }
  // Pages that never reached their file because their mapping went away unsynced.
  std::int64_t pages_lost() const noexcept { return state_->pages_lost.load(); }

  v1::Result<std::unique_ptr<File>> open(const std::string& path, OpenMode mode) noexcept override;
  v1::Status rename(const std::string& from, const std::string& to) noexcept override;
  v1::Status remove_file(const std::string& path) noexcept override { return base_->remove_file(path); }
  v1::Status remove_tree(const std::string& path) noexcept override { return base_->remove_tree(path); }
  v1::Status create_dirs(const std::string& path) noexcept override;
  v1::Result<std::vector<std::string>> list_dir(const std::string& path) noexcept override {
    return base_->list_dir(path);
  }
  bool exists(const std::string& path) noexcept override { return base_->exists(path); }
  bool is_directory(const std::string& path) noexcept override { return base_->is_directory(path); }
  v1::Result<std::int64_t> modified_time_ms(const std::string& path) noexcept override {
    return base_->modified_time_ms(path);
  }
  v1::Result<DiskUsage> disk_usage(const std::string& path) noexcept override;
  v1::Status sync_dir(const std::string& path) noexcept override;
  std::int64_t now_ms() noexcept override;

  // Shared with the files and mappings this env hands out.
  struct State {
    std::mutex mutex;
    std::optional<std::string> write_fault;  // guarded by mutex
    std::optional<std::string> sync_fault;   // guarded by mutex
    std::optional<std::string> read_fault;   // guarded by mutex
    bool disk_full = false;                  // guarded by mutex
    std::optional<double> used_ratio;        // guarded by mutex
    std::chrono::milliseconds sync_delay{0}; // guarded by mutex
    std::optional<std::int64_t> now;         // guarded by mutex
    std::atomic<std::int64_t> syncs{0};
    std::atomic<std::int64_t> injected{0};
    PowerLoss power_loss = PowerLoss::kNone;
    std::atomic<std::uint32_t> seed{1};
    std::atomic<std::int64_t> pages_lost{0};

    // The error to inject for a write (or growth) of `path`, OK for none; a full disk fails only
    // what `needs_blocks`.
    v1::Status write_error(const std::string& path, std::string_view what, bool needs_blocks = true);
    // Sleeps the sync delay, counts the sync and returns the error to inject, OK for none.
    v1::Status sync_error(const std::string& path);
    // The error to inject for a read of `path`, OK for none.
    v1::Status read_error(const std::string& path);
  };

 private:
  std::shared_ptr<Env> base_;
  std::shared_ptr<State> state_;
};

}  // namespace mqkit::plugins::stores::commitlog
