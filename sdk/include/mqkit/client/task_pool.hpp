// TaskPool: threads running posted tasks in submission order, any thread taking the next: the
// push consumer's listener threads (consume_thread_count of them), a transaction producer's check
// threads (with a bound on the tasks waiting), mqproxy's workers (calls that wait on a broker)
// and, with one thread, the client instance's "client-async" executor (work that may block and
// so must not run on a transport thread, such as an async send's retry). A task that throws is
// logged with the pool's name; its thread goes on.
//
// Idle threads sleep on a POSIX semaphore (one post per task), not a condition variable:
// glibc's pthread_cond_signal may block the signaller until threads it woke earlier have run
// (__condvar_quiesce_and_switch_g1). The signaller is often a transport's io thread (handing
// over a pulled batch, or an answer that needs a retry); behind Boost.Asio's thread_pool it was measured blocked there for milliseconds
// at a time on a loaded machine, and the consumer's next pulls and every other answer waited.
//
// Threads: post() from any thread (never blocks for long); join() from the owner, once tasks
// may no longer be posted usefully — it runs the tasks already queued, then joins.
#pragma once

#include <semaphore.h>

#include <cstddef>
#include <deque>
#include <functional>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace mqkit::client {

class TaskPool {
 public:
  // At most `max_waiting` tasks wait for a thread; post() refuses more.
  TaskPool(std::string name, std::size_t threads,
           std::size_t max_waiting = std::numeric_limits<std::size_t>::max());
  ~TaskPool();  // join()
  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;

  // Queues a task; false (the task is dropped) once join() has begun or while max_waiting tasks
  // wait already.
  bool post(std::function<void()> task);
  // Runs what is queued, then joins the threads. Idempotent; not from a task.
  void join();

 private:
  void run(std::size_t index) noexcept;

  std::string name_;
  const std::size_t max_waiting_;
  std::mutex mutex_;
  sem_t ready_;  // one post per task, one per thread at join()
  std::deque<std::function<void()>> tasks_;
  bool joining_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace mqkit::client
