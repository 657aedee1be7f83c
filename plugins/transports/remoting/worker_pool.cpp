#include "transports/remoting/worker_pool.hpp"

#include <string>

#include "mqkit/plugin/v1/thread_name.hpp"
#include "transports/remoting/exception_text.hpp"
#include "transports/remoting/log.hpp"

namespace mqkit::plugins::transports::remoting {

WorkerPool::WorkerPool(std::size_t threads, const Log& log) : log_(log) {
  ::sem_init(&ready_, 0, 0);
  threads_.reserve(threads);
  for (std::size_t i = 0; i < threads; ++i) {
    threads_.emplace_back([this, i] {
      plugin::v1::name_this_thread("RemotingExec", i);
      run();
    });
  }
}

WorkerPool::~WorkerPool() {
  stop();
  ::sem_destroy(&ready_);
}

bool WorkerPool::submit(Job job, std::size_t requests) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return false;
    queue_.push_back({std::chrono::steady_clock::now(), std::move(job), requests});
    queued_requests_ += requests;
  }
  ::sem_post(&ready_);
  return true;
}

void WorkerPool::stop() {
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    threads.swap(threads_);
  }
  // Every thread takes one of these once the jobs queued before are gone, and leaves.
  for (std::size_t i = 0; i < threads.size(); ++i) ::sem_post(&ready_);
  for (auto& t : threads) {
    if (t.get_id() == std::this_thread::get_id()) {
      t.detach();  // stop() called by a job: this thread exits when the job returns
    } else {
      t.join();
    }
  }
}

plugin::v1::RequestQueueFigures WorkerPool::figures() const noexcept {
  plugin::v1::RequestQueueFigures figures;
  std::lock_guard lock(mutex_);
  figures.queued = static_cast<std::int64_t>(queued_requests_);
  if (!queue_.empty()) {
    figures.head_wait_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                                 queue_.front().queued_at)
                               .count();
  }
  return figures;
}

void WorkerPool::run() noexcept {
  for (;;) {
    Entry entry;
    JobContext context;
    while (::sem_wait(&ready_) != 0) {
      // EINTR only: a signal handler ran.
    }
    {
      std::lock_guard lock(mutex_);
      // Posts and jobs match one to one until stop(), so only stop()'s posts find it empty.
      if (queue_.empty()) return;
      entry = std::move(queue_.front());
      queue_.pop_front();
      queued_requests_ -= entry.requests;
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
