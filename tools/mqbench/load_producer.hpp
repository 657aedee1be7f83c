// LoadProducers: the producing side of a run — N mqkit::client::Producer objects (each with its
// own connections), one thread each, sending stamped messages round-robin over the topics at a
// fixed total rate (or as fast as the mode allows) until told to stop or until each has sent
// its share of the measured messages.
//
// Modes: async (send_async; the producer's bounded window keeps memory flat), sync (send),
// oneway (send_oneway: counted when handed over, no latency), batch (send_batch_async of
// batch_size messages).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bench_stats.hpp"
#include "mqkit/client/producer.hpp"
#include "sequence_tracker.hpp"

namespace mqkit::bench {

enum class SendMode { kAsync, kSync, kOneway, kBatch };

struct LoadSpec {
  client::ClientConfig client{};  // name servers and credentials of the run
  std::vector<std::string> topics{};
  SendMode mode = SendMode::kAsync;
  std::size_t size = 1024;
  int batch_size = 32;
  double rate = 0;               // total messages per second; 0 = as fast as possible
  int producers = 1;
  std::uint64_t messages = 0;    // measured messages in total; 0 = until stop()
  std::size_t window = 10000;    // messages in flight per producer (a batch counts its messages)
  bool auto_batch = false;       // async: the producer's auto batching
  std::size_t batch_max_bytes = 0;  // 0 = the producer's default
  std::int64_t batch_max_delay_ms = 0;
};

class LoadProducers {
 public:
  LoadProducers(LoadSpec spec, BenchStats& stats);
  ~LoadProducers();

  // Starts the producers (connects, loads plugins); nothing is sent yet.
  client::Status start();
  // Starts the sending threads.
  void run();
  // Blocks until every thread sent its share (only with spec.messages) or stop() was called.
  void wait();
  // Asks the threads to stop, waits for them and for every outstanding send to call back.
  void stop();

  // What each producer sent (index = producer id in the stamps); call after stop().
  std::vector<ProducerLedger> ledgers() const;

 private:
  struct Worker;
  void send_loop(Worker& worker);

  LoadSpec spec_;
  BenchStats& stats_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::atomic<bool> stop_{false};
};

}  // namespace mqkit::bench
