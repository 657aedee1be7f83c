#include "client_threads.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "mqkit/plugin/v1/thread_name.hpp"

namespace mqkit::client {

namespace {

thread_local bool client_thread = false;

class Reaper {
 public:
  Reaper()
      : thread_([this] {
          plugin::v1::name_this_thread("ClientReaper");
          run();
        }) {}
  ~Reaper() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  Reaper(const Reaper&) = delete;
  Reaper& operator=(const Reaper&) = delete;

  void hand_over(std::function<void()> destroy) {
    {
      std::lock_guard lock(mutex_);
      pending_.push_back(std::move(destroy));
    }
    wake_.notify_one();
  }

 private:
  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return stopping_ || !pending_.empty(); });
      if (pending_.empty()) return;  // stopping, and everything handed over is done
      auto destroy = std::move(pending_.front());
      pending_.pop_front();
      lock.unlock();
      destroy();
      lock.lock();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> pending_;
  bool stopping_ = false;
  std::thread thread_;  // last: run() uses the members above
};

}  // namespace

void mark_client_thread(std::string_view name) noexcept {
  client_thread = true;
  plugin::v1::name_this_thread(name);
}

void mark_client_thread(std::string_view name, std::size_t index) noexcept {
  client_thread = true;
  plugin::v1::name_this_thread(name, index);
}
bool on_client_thread() noexcept { return client_thread; }

void destroy_on_reaper_thread(std::function<void()> destroy) {
  static Reaper reaper;
  reaper.hand_over(std::move(destroy));
}

}  // namespace mqkit::client
