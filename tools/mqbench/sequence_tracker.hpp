// SequenceTracker: accounts for every stamped message a benchmark receives, against what its
// producers had acknowledged: lost (acknowledged, never received), duplicated (received more
// than once) and out-of-order (a producer's sequence going backwards within one queue — order
// is only promised per queue, and a producer spreads its messages over many).
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
  // naming the queue).
  void record(std::uint32_t producer, std::uint64_t sequence, std::uint64_t stream);

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
    std::unordered_map<std::uint64_t, std::uint64_t> next_in_stream{};  // stream → highest + 1
    bool seen(std::uint64_t sequence) const;
  };

  std::map<std::uint32_t, Producer> producers_;
  std::uint64_t unique_ = 0;
  std::uint64_t duplicated_ = 0;
  std::uint64_t out_of_order_ = 0;
};

}  // namespace mqkit::bench
