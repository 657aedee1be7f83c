// The SDK's decoding of one pull answer: decode_messages over a body of 32 stored records of
// 1 KiB messages with the properties a producer typically sets (UNIQ_KEY, KEYS, TAGS, WAIT and
// three user properties) — what the push consumer does for every PULL_MESSAGE it gets back.
// /0: properties in name order, as this SDK's producer writes them (from its sorted map);
// /1: in another order, as a Java producer's HashMap may write them.
// The base is copying the same 32 bodies into strings, which any decoding must do.
//
//   build/release/bin/client_decode_bench [--benchmark_repetitions=3]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "mqkit/client/message_ext.hpp"
#include "mqkit/plugin/v1/message_record.hpp"

namespace {

namespace v1 = mqkit::plugin::v1;

constexpr int kMessages = 32;
constexpr std::size_t kBodySize = 1024;

v1::HostAddress v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d, std::int32_t port) {
  v1::HostAddress h;
  h.ip = {a, b, c, d};
  h.port = port;
  return h;
}

// 32 records back to back, as the broker answers a PULL_MESSAGE of --pull-batch 32.
std::vector<std::uint8_t> pull_body(bool sorted_properties) {
  std::vector<std::uint8_t> out;
  const std::string body(kBodySize, 'x');
  for (int i = 0; i < kMessages; ++i) {
    char unique[33];
    std::snprintf(unique, sizeof unique, "7F0000010B2A18B4AAC2%012X", i);
    v1::Properties properties{{"UNIQ_KEY", unique},
                              {"KEYS", "order-" + std::to_string(100000 + i)},
                              {"TAGS", "TagA"},
                              {"WAIT", "true"},
                              {"tenant", "acme"},
                              {"trace_id", "4bf92f3577b34da6a3ce929d0e0e4736"},
                              {"source", "checkout-service"}};
    if (sorted_properties) std::ranges::sort(properties);
    const std::string encoded = v1::encode_properties(properties);
    v1::MessageToAppend m;
    m.topic = "bench_topic";
    m.queue_id = 3;
    m.born_timestamp = 1764450000000 + i;
    m.born_host = v4(127, 0, 0, 1, 54321);
    m.store_host = v4(127, 0, 0, 1, 10911);
    m.body = {reinterpret_cast<const std::uint8_t*>(body.data()), body.size()};
    m.properties = encoded;
    const v1::RecordPlacement placement{.queue_offset = 1000 + i,
                                        .commit_offset = 1048576 + static_cast<std::int64_t>(out.size()),
                                        .store_timestamp = 1764450000005 + i};
    const std::size_t start = out.size();
    out.resize(start + static_cast<std::size_t>(v1::record_size(m)));
    if (!v1::encode_record(m, placement, std::span<std::uint8_t>(out).subspan(start)).is_ok()) std::abort();
  }
  return out;
}

void BM_DecodePullBody(benchmark::State& state) {
  const auto body = pull_body(state.range(0) == 0);
  for (auto _ : state) {
    auto messages = mqkit::client::decode_messages(body);
    if (!messages || messages->size() != kMessages) state.SkipWithError("pull body did not decode");
    benchmark::DoNotOptimize(messages);
  }
  state.SetItemsProcessed(state.iterations() * kMessages);
  state.counters["ns_per_msg"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kMessages),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_DecodePullBody)->Arg(0)->Arg(1);

// Base: the body copies alone (decode_record to find them, then one string each).
void BM_CopyBodiesOnly(benchmark::State& state) {
  const auto body = pull_body(true);
  for (auto _ : state) {
    std::vector<std::string> bodies;
    bodies.reserve(kMessages);
    std::span<const std::uint8_t> rest(body);
    while (!rest.empty()) {
      auto record = v1::decode_record(rest);
      if (!record) std::abort();
      bodies.emplace_back(reinterpret_cast<const char*>(record->body.data()), record->body.size());
      rest = rest.subspan(static_cast<std::size_t>(record->total_size));
    }
    benchmark::DoNotOptimize(bodies);
  }
  state.SetItemsProcessed(state.iterations() * kMessages);
  state.counters["ns_per_msg"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kMessages),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_CopyBodiesOnly);

}  // namespace

BENCHMARK_MAIN();
