// A fixed set of threads running jobs in submission order. Each job learns how long it waited
// in the queue and how long the queue was when it started, so request jobs can apply RocketMQ's
// "period in queue" flow control themselves.
//
// Idle threads sleep on a POSIX semaphore (one post per job), not a condition variable: glibc's
// pthread_cond_signal may block the signaller until threads it woke earlier have run
// (__condvar_quiesce_and_switch_g1), and the signaller here is the io thread — on a loaded
// machine that stalled every socket of the process for milliseconds at a time.
#pragma once

#include <semaphore.h>

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "mqkit/plugin/v1/runtime_figures.hpp"

namespace mqkit::plugins::transports::remoting {

class Log;

struct JobContext {
  std::chrono::steady_clock::duration waited{};
  std::size_t queue_size = 0;  // jobs still queued when this one started
};

// Its queue is the transport's v1::RequestQueue (the broker's runtime figures).
class WorkerPool final : public plugin::v1::RequestQueue {
 public:
  using Job = std::function<void(const JobContext&)>;

  WorkerPool(std::size_t threads, const Log& log);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Queues a job carrying `requests` requests (what figures() counts); false once stop() has
  // begun (the job is not run).
  bool submit(Job job, std::size_t requests = 0);
  // The requests of the queued jobs and how long the oldest job has waited.
  plugin::v1::RequestQueueFigures figures() const noexcept override;
  // Refuses new jobs, runs every job already queued, joins the threads. Idempotent. A call
  // from one of the pool's own threads does not wait for that thread.
  void stop();

 private:
  struct Entry {
    std::chrono::steady_clock::time_point queued_at;
    Job job;
    std::size_t requests = 0;
  };

  void run() noexcept;

  const Log& log_;
  mutable std::mutex mutex_;
  sem_t ready_;  // one post per job, and one per thread at stop()
  std::deque<Entry> queue_;
  std::size_t queued_requests_ = 0;  // the sum of the queued entries' requests
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace mqkit::plugins::transports::remoting
