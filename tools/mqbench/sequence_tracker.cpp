#include "sequence_tracker.hpp"

namespace mqkit::bench {

bool SequenceTracker::Producer::seen(std::uint64_t sequence) const {
  const std::uint64_t word = sequence / 64;
  return word < seen_bits.size() && (seen_bits[word] >> (sequence % 64) & 1U) != 0;
}

void SequenceTracker::record(std::uint32_t producer, std::uint64_t sequence, std::uint64_t stream,
                             std::int64_t position) {
  Producer& p = producers_[producer];
  const std::uint64_t word = sequence / 64;
  if (word >= p.seen_bits.size()) p.seen_bits.resize(word + 1 + word / 2, 0);
  const std::uint64_t bit = std::uint64_t{1} << (sequence % 64);
  if ((p.seen_bits[word] & bit) != 0) {
    ++duplicated_;
    return;
  }
  p.seen_bits[word] |= bit;
  ++unique_;
  // Compared with the furthest message stored so far: a later offset must carry a later
  // sequence, an earlier offset (delivered late) an earlier one.
  const auto [furthest, first] = p.furthest_in_stream.try_emplace(stream, Producer::Furthest{position, sequence});
  if (first) return;
  Producer::Furthest& f = furthest->second;
  if (position > f.position) {
    if (sequence < f.sequence) ++out_of_order_;
    f = {position, sequence};
  } else if (position < f.position && sequence > f.sequence) {
    ++out_of_order_;
  }
}

std::uint64_t SequenceTracker::missing(const std::vector<ProducerLedger>& ledgers) const {
  std::uint64_t missing = 0;
  for (std::uint32_t id = 0; id < ledgers.size(); ++id) {
    const ProducerLedger& ledger = ledgers[id];
    auto it = producers_.find(id);
    for (std::uint64_t s = 0; s < ledger.sent; ++s) {
      const bool received = it != producers_.end() && it->second.seen(s);
      if (!received && !ledger.failed.contains(s)) ++missing;
    }
  }
  return missing;
}

SequenceErrors SequenceTracker::errors(const std::vector<ProducerLedger>& ledgers) const {
  return SequenceErrors{missing(ledgers), duplicated_, out_of_order_};
}

}  // namespace mqkit::bench
