#include "transports/remoting/worker_pool.hpp"

#include <string>

#include "transports/remoting/exception_text.hpp"
#include "transports/remoting/log.hpp"

namespace mqkit::plugins::transports::remoting {

WorkerPool::WorkerPool(std::size_t threads, const Log& log) : log_(log) {
  threads_.reserve(threads);
  for (std::size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { run(); });
}

WorkerPool::~WorkerPool() { stop(); }

bool WorkerPool::submit(Job job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return false;
    queue_.push_back({std::chrono::steady_clock::now(), std::move(job)});
  }
  ready_.notify_one();
  return true;
}

void WorkerPool::stop() {
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    threads.swap(threads_);
  }
  ready_.notify_all();
  for (auto& t : threads) {
    if (t.get_id() == std::this_thread::get_id()) {
      t.detach();  // stop() called by a job: this thread exits when the job returns
    } else {
      t.join();
    }
  }
}

void WorkerPool::run() noexcept {
  for (;;) {
    Entry entry;
    JobContext context;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      entry = std::move(queue_.front());
      queue_.pop_front();
      context.queue_size = queue_.size();
    }
    context.waited = std::chrono::steady_clock::now() - entry.queued_at;
    try {
      entry.job(context);
    } catch (...) {
      log_.error("worker job threw: " + current_exception_text());
    }
  }
}

}  // namespace mqkit::plugins::transports::remoting
