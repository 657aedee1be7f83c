// TraceDispatcher: RocketMQ 4.x's AsyncTraceDispatcher — trace records of a traced client, batched
// into trace messages in the background.
//
// append() puts a record into a bounded queue and returns at once: a full queue drops the record
// (counted, with a warning now and then), so tracing never holds a send or a listener up. The
// dispatcher's thread encodes queued records into the pending trace message and hands it to the
// sink once its body reaches batch_bytes (RocketMQ: 128,000 minus a 10,000 margin) or its first
// record waited max_delay (RocketMQ: 500 ms). shutdown() encodes and hands over everything queued.
//
// Threads: append() from any thread; the sink runs on the dispatcher's thread only.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "mqkit/client/trace_data.hpp"

namespace mqkit::client::trace {

// Takes one trace message: its body and the keys it is to be indexed under.
using TraceMessageSink = std::function<void(std::string body, std::vector<std::string> keys)>;

struct DispatcherLimits {
  std::size_t queue_capacity = 1024;           // traceContextQueue
  std::size_t batch_bytes = 128'000 - 10'000;  // maxMsgSize less the margin RocketMQ leaves
  std::chrono::milliseconds max_delay{500};    // waitTimeThresholdMil
};

class TraceDispatcher {
 public:
  explicit TraceDispatcher(TraceMessageSink sink, DispatcherLimits limits = {});
  ~TraceDispatcher();  // shutdown()
  TraceDispatcher(const TraceDispatcher&) = delete;
  TraceDispatcher& operator=(const TraceDispatcher&) = delete;

  // False when the record was dropped: the queue is full, or the dispatcher shut down.
  bool append(TraceContext context);
  // Hands every queued record to the sink, then stops the thread. Idempotent.
  void shutdown();
  // Records dropped because the queue was full.
  std::uint64_t discarded() const;

 private:
  // The trace message being filled.
  struct Pending {
    std::string body;
    std::vector<std::string> keys;
    std::unordered_set<std::string> key_set;
    std::chrono::steady_clock::time_point first_added{};
  };

  void run();
  void add(Pending& pending, const TraceContext& context);
  void hand_over(Pending& pending);

  const TraceMessageSink sink_;
  const DispatcherLimits limits_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<TraceContext> queue_;
  bool stopping_ = false;
  std::uint64_t discarded_ = 0;
  std::mutex join_mutex_;
  std::thread thread_;
};

}  // namespace mqkit::client::trace
