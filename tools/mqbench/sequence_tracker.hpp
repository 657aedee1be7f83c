// SequenceTracker: accounts for every stamped message a benchmark receives, against what its
// producers had acknowledged: lost (acknowledged, never received), duplicated (received more
// than once) and out-of-order (a producer's sequence going backwards along one queue's offsets —
// order is only promised per queue, and a producer spreads its messages over many). Order is
// judged by where messages are stored (their queue offsets), not by when they arrive: a
// concurrent push consumer hands one queue's batches to several listener threads, which may
// deliver them in any order.
//
// Memory: one bit per sequence number per producer. Not synchronized: the caller locks.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

namespace mqkit::bench {

struct SequenceErrors {
  std::uint64_t lost = 0;
  std::uint64_t duplicated = 0;
  std::uint64_t out_of_order = 0;
  std::uint64_t total() const noexcept { return lost + duplicated + out_of_order; }
};

// What one producer sent: sequences 0 .. sent-1, of which `failed` got an error instead of an
// acknowledgement (they may or may not be stored, so they are never counted as lost).
struct ProducerLedger {
  std::uint64_t sent = 0;
  std::set<std::uint64_t> failed{};
};

class SequenceTracker {
 public:
  // One received message of `producer` with `sequence`, read from queue `stream` (any number
  // naming the queue) at queue offset `position`.
  void record(std::uint32_t producer, std::uint64_t sequence, std::uint64_t stream, std::int64_t position);

  // Distinct (producer, sequence) pairs received.
  std::uint64_t unique() const noexcept { return unique_; }
  std::uint64_t duplicated() const noexcept { return duplicated_; }
  std::uint64_t out_of_order() const noexcept { return out_of_order_; }
  // Messages of producer p acknowledged but not (yet) received; ledgers[p] describes producer p.
  std::uint64_t missing(const std::vector<ProducerLedger>& ledgers) const;
  SequenceErrors errors(const std::vector<ProducerLedger>& ledgers) const;

 private:
  struct Producer {
    std::vector<std::uint64_t> seen_bits{};
    // stream → the message at the highest queue offset received so far
    struct Furthest {
      std::int64_t position = 0;
      std::uint64_t sequence = 0;
    };
    std::unordered_map<std::uint64_t, Furthest> furthest_in_stream{};
    bool seen(std::uint64_t sequence) const;
  };

  std::map<std::uint32_t, Producer> producers_;
  std::uint64_t unique_ = 0;
  std::uint64_t duplicated_ = 0;
  std::uint64_t out_of_order_ = 0;
};

}  // namespace mqkit::bench
