// ConsumePool: the push consumer's listener threads (consume_thread_count of them) running
// tasks in submission order, any thread taking the next.
//
// Idle threads sleep on a POSIX semaphore (one post per task), not a condition variable:
// glibc's pthread_cond_signal may block the signaller until threads it woke earlier have run
// (__condvar_quiesce_and_switch_g1). The signaller is the transport's io thread handing over a
// pulled batch; behind Boost.Asio's thread_pool it was measured blocked there for milliseconds
// at a time on a loaded machine, and the consumer's next pulls and every other answer waited.
//
// Threads: post() from any thread (never blocks for long); join() from the owner, once tasks
// may no longer be posted usefully — it runs the tasks already queued, then joins.
#pragma once

#include <semaphore.h>

#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace mqkit::client {

class ConsumePool {
 public:
  explicit ConsumePool(std::size_t threads);
  ~ConsumePool();  // join()
  ConsumePool(const ConsumePool&) = delete;
  ConsumePool& operator=(const ConsumePool&) = delete;

  // Queues a task; after join() has begun the task is dropped.
  void post(std::function<void()> task);
  // Runs what is queued, then joins the threads. Idempotent; not from a task.
  void join();

 private:
  void run() noexcept;

  std::mutex mutex_;
  sem_t ready_;  // one post per task, one per thread at join()
  std::deque<std::function<void()>> tasks_;
  bool joining_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace mqkit::client
