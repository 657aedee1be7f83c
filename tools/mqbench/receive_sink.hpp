// ReceiveSink: what the consumer side does with each delivered batch — read the stamps, feed the
// sequence tracker (every message, warm-up included), count first receipts of measured messages
// and record their end-to-end latency. One lock per batch.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "bench_stats.hpp"
#include "message_source.hpp"
#include "sequence_tracker.hpp"

namespace mqkit::bench {

class ReceiveSink {
 public:
  explicit ReceiveSink(BenchStats& stats) : stats_(stats) {}

  void on_messages(const client::MessageQueue& queue, std::span<const client::MessageExt> messages);
  MessageHandler handler() {
    return [this](const client::MessageQueue& q, std::span<const client::MessageExt> m) { on_messages(q, m); };
  }

  std::uint64_t missing(const std::vector<ProducerLedger>& ledgers) const;
  SequenceErrors errors(const std::vector<ProducerLedger>& ledgers) const;
  // Messages without an mqbench stamp (another writer on the topic).
  std::uint64_t foreign() const;

 private:
  BenchStats& stats_;
  mutable std::mutex mutex_;
  SequenceTracker tracker_;
  std::map<client::MessageQueue, std::uint64_t> streams_;
  std::uint64_t foreign_ = 0;
};

}  // namespace mqkit::bench
