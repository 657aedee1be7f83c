#include "bench_stats.hpp"

#include "payload_stamp.hpp"

namespace mqkit::bench {

void LatencyRecorder::record(std::uint64_t micros) {
  std::lock_guard lock(mutex_);
  interval_.record(micros);
  total_.record(micros);
}

void LatencyRecorder::record_all(std::span<const std::uint64_t> micros) {
  if (micros.empty()) return;
  std::lock_guard lock(mutex_);
  for (std::uint64_t m : micros) {
    interval_.record(m);
    total_.record(m);
  }
}

LatencyHistogram LatencyRecorder::take_interval() {
  std::lock_guard lock(mutex_);
  LatencyHistogram taken = interval_;
  interval_.reset();
  return taken;
}

LatencyHistogram LatencyRecorder::total() const {
  std::lock_guard lock(mutex_);
  return total_;
}

void LatencyRecorder::reset() {
  std::lock_guard lock(mutex_);
  interval_.reset();
  total_.reset();
}

void SendErrorTexts::note(std::string text, std::uint64_t count) {
  std::lock_guard lock(mutex_);
  for (auto& [known, times] : texts_) {
    if (known == text) {
      times += count;
      return;
    }
  }
  if (texts_.size() < kDistinct) texts_.emplace_back(std::move(text), count);
}

std::vector<std::pair<std::string, std::uint64_t>> SendErrorTexts::snapshot() const {
  std::lock_guard lock(mutex_);
  return texts_;
}

void SendErrorTexts::reset() {
  std::lock_guard lock(mutex_);
  texts_.clear();
}

void BenchStats::begin_measurement() {
  sent.reset();
  received.reset();
  send_errors.store(0, std::memory_order_relaxed);
  send_error_texts.reset();
  publish.reset();
  e2e.reset();
  measure_start_ns_.store(wall_clock_ns(), std::memory_order_release);
}

}  // namespace mqkit::bench
