#include "fault_env.hpp"

#include <algorithm>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

namespace mqkit::plugins::stores::commitlog {

namespace {

bool matches(const std::optional<std::string>& fault, const std::string& path) {
  return fault && path.find(*fault) != std::string::npos;
}

class FaultMapping final : public Mapping {
 public:
  FaultMapping(std::unique_ptr<Mapping> base, std::string path, std::shared_ptr<FaultEnv::State> state)
      : base_(std::move(base)), path_(std::move(path)), state_(std::move(state)) {}
  std::uint8_t* data() noexcept override { return base_->data(); }
  std::int64_t size() const noexcept override { return base_->size(); }
  void advise_random() noexcept override { base_->advise_random(); }
  void drop_pages(std::int64_t offset, std::int64_t length) noexcept override { base_->drop_pages(offset, length); }
  void populate(std::int64_t offset, std::int64_t length) noexcept override { base_->populate(offset, length); }
  v1::Status sync(std::int64_t offset, std::int64_t length) noexcept override {
    MQKIT_RETURN_IF_ERROR(state_->sync_error(path_));
    return base_->sync(offset, length);
  }

 private:
  std::unique_ptr<Mapping> base_;
  std::string path_;
  std::shared_ptr<FaultEnv::State> state_;
};

// The page cache of one file under a PowerLoss model: a private copy of the file that writes
// through the mapping and pwrites (write_at) both change, and that only a sync (msync of a range,
// fsync of the file) writes back. When the last user goes away (the store was dropped, as in
// simulate_crash + destroy), unsynced pages are lost — all of them, or a random half.
class SimulatedPageCache {
 public:
  static constexpr std::int64_t kPage = 4096;

  SimulatedPageCache(File& file, std::shared_ptr<FaultEnv::State> state, std::vector<std::uint8_t> bytes)
      : file_(file), state_(std::move(state)), memory_(std::move(bytes)), synced_(memory_) {}
  ~SimulatedPageCache() {
    std::mt19937 random(state_->seed.fetch_add(1));
    for (std::int64_t page = 0; page < size(); page += kPage) {
      const auto length = static_cast<std::size_t>(std::min(kPage, size() - page));
      if (std::memcmp(memory_.data() + page, synced_.data() + page, length) == 0) continue;
      if (state_->power_loss == FaultEnv::PowerLoss::kRandomPages && random() % 2 == 0) {
        (void)file_.write_at(page, {memory_.data() + page, length});
      } else {
        ++state_->pages_lost;
      }
    }
  }
  SimulatedPageCache(const SimulatedPageCache&) = delete;
  SimulatedPageCache& operator=(const SimulatedPageCache&) = delete;

  std::uint8_t* data() noexcept { return memory_.data(); }
  std::int64_t size() const noexcept { return static_cast<std::int64_t>(memory_.size()); }

  // pwrite into the cache: beyond the cached size it goes to the file as it is (the store only
  // writes inside the mapped size).
  v1::Status write(std::int64_t offset, std::span<const std::uint8_t> data) {
    if (offset + static_cast<std::int64_t>(data.size()) > size()) {
      return v1::Status::internal("simulated page cache: a write past the mapped size of " + file_.path());
    }
    std::memcpy(memory_.data() + offset, data.data(), data.size());
    return v1::Status::ok();
  }
  std::size_t read(std::int64_t offset, std::span<std::uint8_t> out) const {
    if (offset >= size()) return 0;
    const auto length = std::min(out.size(), static_cast<std::size_t>(size() - offset));
    std::memcpy(out.data(), memory_.data() + offset, length);
    return length;
  }
  // Writes [offset, offset + length), widened to whole pages, back to the file and syncs it.
  v1::Status sync(std::int64_t offset, std::int64_t length) {
    MQKIT_RETURN_IF_ERROR(state_->sync_error(file_.path()));
    const std::int64_t begin = offset / kPage * kPage;
    const std::int64_t end = std::min(size(), offset + length);
    if (end <= begin) return v1::Status::ok();
    const auto count = static_cast<std::size_t>(end - begin);
    MQKIT_RETURN_IF_ERROR(file_.write_at(begin, {memory_.data() + begin, count}));
    std::memcpy(synced_.data() + begin, memory_.data() + begin, count);
    return file_.sync();
  }

 private:
  File& file_;  // the FaultFile's base file, which outlives its cache (FaultFile destroys the cache first)
  std::shared_ptr<FaultEnv::State> state_;
  std::vector<std::uint8_t> memory_;
  std::vector<std::uint8_t> synced_;
};

class CachedMapping final : public Mapping {
 public:
  explicit CachedMapping(std::shared_ptr<SimulatedPageCache> cache) : cache_(std::move(cache)) {}
  std::uint8_t* data() noexcept override { return cache_->data(); }
  std::int64_t size() const noexcept override { return cache_->size(); }
  v1::Status sync(std::int64_t offset, std::int64_t length) noexcept override { return cache_->sync(offset, length); }

 private:
  std::shared_ptr<SimulatedPageCache> cache_;
};

class FaultFile final : public File {
 public:
  FaultFile(std::unique_ptr<File> base, std::shared_ptr<FaultEnv::State> state)
      : base_(std::move(base)), state_(std::move(state)) {}
  const std::string& path() const noexcept override { return base_->path(); }
  v1::Result<std::int64_t> size() noexcept override { return base_->size(); }
  v1::Status allocate(std::int64_t offset, std::int64_t length) noexcept override {
    MQKIT_RETURN_IF_ERROR(state_->write_error(path(), "allocating"));
    MQKIT_RETURN_IF_ERROR(base_->allocate(offset, length));
    reserved_ = std::max(reserved_.load(), offset + length);
    return v1::Status::ok();
  }
  v1::Status truncate(std::int64_t length) noexcept override {
    MQKIT_RETURN_IF_ERROR(state_->write_error(path(), "truncating"));
    return base_->truncate(length);
  }
  v1::Result<std::size_t> read_at(std::int64_t offset, std::span<std::uint8_t> out) noexcept override {
    MQKIT_RETURN_IF_ERROR(state_->read_error(path()));
    if (cache_) return cache_->read(offset, out);
    return base_->read_at(offset, out);
  }
  v1::Status write_at(std::int64_t offset, std::span<const std::uint8_t> data) noexcept override {
    // Writing into blocks reserved earlier needs no new ones: a full disk does not fail it.
    const bool needs_blocks = offset + static_cast<std::int64_t>(data.size()) > reserved_.load();
    MQKIT_RETURN_IF_ERROR(state_->write_error(path(), "writing", needs_blocks));
    // A mapped file's pwrite lands in the same (simulated) page cache as writes through the map.
    if (cache_) return cache_->write(offset, data);
    return base_->write_at(offset, data);
  }
  v1::Status sync() noexcept override {
    if (cache_) return cache_->sync(0, cache_->size());
    MQKIT_RETURN_IF_ERROR(state_->sync_error(path()));
    return base_->sync();
  }
  // The simulated page cache keeps every page (what it holds decides what survives a power loss).
  void drop_cached(std::int64_t offset, std::int64_t length) noexcept override {
    if (!cache_) base_->drop_cached(offset, length);
  }
  void start_writeback(std::int64_t offset, std::int64_t length) noexcept override {
    if (!cache_) base_->start_writeback(offset, length);
  }
  v1::Result<std::unique_ptr<Mapping>> map(std::int64_t length) noexcept override {
    if (state_->power_loss != FaultEnv::PowerLoss::kNone) {
      if (!cache_) {
        std::vector<std::uint8_t> bytes(static_cast<std::size_t>(length));
        MQKIT_RETURN_IF_ERROR(base_->read_at(0, bytes).status());
        cache_ = std::make_shared<SimulatedPageCache>(*base_, state_, std::move(bytes));
      } else if (cache_->size() != length) {
        return v1::Status::internal("simulated page cache: " + path() + " mapped twice with different sizes");
      }
      return std::unique_ptr<Mapping>(std::make_unique<CachedMapping>(cache_));
    }
    MQKIT_ASSIGN_OR_RETURN(auto mapping, base_->map(length));
    return std::unique_ptr<Mapping>(std::make_unique<FaultMapping>(std::move(mapping), path(), state_));
  }
  v1::Status try_lock() noexcept override { return base_->try_lock(); }

 private:
  std::unique_ptr<File> base_;
  std::shared_ptr<FaultEnv::State> state_;
  std::atomic<std::int64_t> reserved_{0};  // end of what allocate() reserved
  // Power-loss models: the file's page cache once it is mapped. Declared after base_, so it is
  // destroyed first (its destructor writes surviving pages to base_).
  std::shared_ptr<SimulatedPageCache> cache_;
};

}  // namespace

v1::Status FaultEnv::State::write_error(const std::string& path, std::string_view what, bool needs_blocks) {
  std::lock_guard lock(mutex);
  if (disk_full && needs_blocks) {
    ++injected;
    return v1::Status::io_error(std::string(what) + " " + path + ": No space left on device (injected)");
  }
  if (matches(write_fault, path)) {
    ++injected;
    return v1::Status::io_error(std::string(what) + " " + path + ": Input/output error (injected)");
  }
  return v1::Status::ok();
}

v1::Status FaultEnv::State::read_error(const std::string& path) {
  std::lock_guard lock(mutex);
  if (!matches(read_fault, path)) return v1::Status::ok();
  ++injected;
  return v1::Status::io_error("reading " + path + ": Input/output error (injected)");
}

v1::Status FaultEnv::State::sync_error(const std::string& path) {
  std::chrono::milliseconds delay{0};
  bool fail = false;
  {
    std::lock_guard lock(mutex);
    delay = sync_delay;
    fail = matches(sync_fault, path);
  }
  if (delay.count() > 0) std::this_thread::sleep_for(delay);
  ++syncs;
  if (!fail) return v1::Status::ok();
  ++injected;
  return v1::Status::io_error("fsync " + path + ": Input/output error (injected)");
}

FaultEnv::FaultEnv(std::shared_ptr<Env> base, PowerLoss power_loss, std::uint32_t seed)
    : base_(std::move(base)), state_(std::make_shared<State>()) {
  state_->power_loss = power_loss;
  state_->seed = seed;
}

void FaultEnv::fail_writes(std::string path_part) {
  std::lock_guard lock(state_->mutex);
  state_->write_fault = std::move(path_part);
}

void FaultEnv::fail_syncs(std::string path_part) {
  std::lock_guard lock(state_->mutex);
  state_->sync_fault = std::move(path_part);
}

void FaultEnv::fail_reads(std::string path_part) {
  std::lock_guard lock(state_->mutex);
  state_->read_fault = std::move(path_part);
}

void FaultEnv::set_disk_full(bool full) {
  std::lock_guard lock(state_->mutex);
  state_->disk_full = full;
}

void FaultEnv::set_disk_used_ratio(std::optional<double> ratio) {
  std::lock_guard lock(state_->mutex);
  state_->used_ratio = ratio;
}

void FaultEnv::set_sync_delay(std::chrono::milliseconds delay) {
  std::lock_guard lock(state_->mutex);
  state_->sync_delay = delay;
}

void FaultEnv::set_now_ms(std::optional<std::int64_t> now) {
  std::lock_guard lock(state_->mutex);
  state_->now = now;
}

void FaultEnv::heal() {
  std::lock_guard lock(state_->mutex);
  state_->write_fault.reset();
  state_->sync_fault.reset();
  state_->read_fault.reset();
  state_->disk_full = false;
  state_->used_ratio.reset();
  state_->sync_delay = std::chrono::milliseconds(0);
}

v1::Result<std::unique_ptr<File>> FaultEnv::open(const std::string& path, OpenMode mode) noexcept {
  if (mode != OpenMode::kOpenExisting && !base_->exists(path)) {
    MQKIT_RETURN_IF_ERROR(state_->write_error(path, "creating"));
  }
  MQKIT_ASSIGN_OR_RETURN(auto file, base_->open(path, mode));
  return std::unique_ptr<File>(std::make_unique<FaultFile>(std::move(file), state_));
}

v1::Status FaultEnv::rename(const std::string& from, const std::string& to) noexcept {
  MQKIT_RETURN_IF_ERROR(state_->write_error(to, "renaming to"));
  return base_->rename(from, to);
}

v1::Status FaultEnv::create_dirs(const std::string& path) noexcept {
  if (!base_->exists(path)) MQKIT_RETURN_IF_ERROR(state_->write_error(path, "creating directory"));
  return base_->create_dirs(path);
}

v1::Result<DiskUsage> FaultEnv::disk_usage(const std::string& path) noexcept {
  std::optional<double> ratio;
  {
    std::lock_guard lock(state_->mutex);
    ratio = state_->disk_full ? std::optional<double>(1.0) : state_->used_ratio;
  }
  if (!ratio) return base_->disk_usage(path);
  DiskUsage usage;
  usage.total_bytes = 1'000'000'000;
  usage.available_bytes = static_cast<std::int64_t>((1.0 - *ratio) * static_cast<double>(usage.total_bytes));
  return usage;
}

v1::Status FaultEnv::sync_dir(const std::string& path) noexcept {
  MQKIT_RETURN_IF_ERROR(state_->sync_error(path));
  return base_->sync_dir(path);
}

std::int64_t FaultEnv::now_ms() noexcept {
  {
    std::lock_guard lock(state_->mutex);
    if (state_->now) return *state_->now;
  }
  return base_->now_ms();
}

}  // namespace mqkit::plugins::stores::commitlog
