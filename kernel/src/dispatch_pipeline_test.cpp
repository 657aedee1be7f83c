#include "mqkit/kernel/dispatch_pipeline.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <mutex>
#include <thread>

#include "mqkit/plugin/v1/message_record.hpp"

namespace mqkit::kernel {
namespace {

namespace v1 = plugin::v1;
using v1::Result;
using v1::Status;

// A commit log in a vector: just enough MessageStore for the pipeline.
class VectorStore final : public v1::MessageStore {
 public:
  explicit VectorStore(std::vector<v1::Dispatcher*> dispatchers) : dispatchers_(std::move(dispatchers)) {}

  void add(std::string_view topic, std::string properties, std::string_view body = "body") {
    std::lock_guard lock(mutex_);
    v1::MessageToAppend m;
    m.topic = topic;
    m.body = {reinterpret_cast<const std::uint8_t*>(body.data()), body.size()};
    m.properties = properties;
    const auto start = log_.size();
    log_.resize(start + static_cast<std::size_t>(v1::record_size(m)));
    const auto offset = static_cast<std::int64_t>(start);
    last_start_ = start;
    ASSERT_TRUE(v1::encode_record(m, {next_queue_offset_++, offset, 1000 + offset},
                                  std::span(log_).subspan(start)).is_ok());
  }
  void corrupt_last_magic() {
    std::lock_guard lock(mutex_);
    log_[last_start_ + 4] = 0;  // the magic code
  }
  std::int64_t size() {
    std::lock_guard lock(mutex_);
    return static_cast<std::int64_t>(log_.size());
  }
  std::int64_t last_on_dispatched() const { return on_dispatched_; }
  std::int64_t reads() {
    std::lock_guard lock(mutex_);
    return reads_;
  }

  Result<v1::DispatchChunk> read_for_dispatch(std::int64_t from, std::int64_t max_bytes) noexcept override {
    std::lock_guard lock(mutex_);
    ++reads_;
    // Hand out whole records only, as the interface requires.
    std::size_t end = static_cast<std::size_t>(from);
    while (end < log_.size()) {
      auto r = v1::decode_record(std::span(log_).subspan(end));
      const auto size = r ? static_cast<std::size_t>(r->total_size) : log_.size() - end;
      if (end + size - static_cast<std::size_t>(from) > static_cast<std::size_t>(max_bytes) &&
          end != static_cast<std::size_t>(from)) {
        break;
      }
      end += size;
    }
    auto copy = std::make_shared<std::vector<std::uint8_t>>(log_.begin() + from, log_.begin() + static_cast<std::ptrdiff_t>(end));
    return v1::DispatchChunk{{*copy, copy}, from, static_cast<std::int64_t>(end)};
  }
  std::span<v1::Dispatcher* const> dispatchers() noexcept override { return dispatchers_; }
  void on_dispatched(std::int64_t next) noexcept override { on_dispatched_ = next; }

  // Unused by the pipeline.
  Result<v1::RecoveryReport> start() noexcept override { return v1::RecoveryReport{}; }
  void shutdown() noexcept override {}
  void append(std::span<const v1::MessageToAppend>, const v1::AppendOptions&, v1::AppendCallback) noexcept override {}
  Status append_replicated(std::int64_t, std::span<const std::uint8_t>) noexcept override { return Status::ok(); }
  Result<v1::ReadResult> read(const v1::ReadRequest&) noexcept override { return v1::ReadResult{}; }
  std::int64_t min_offset(std::string_view, std::int32_t) noexcept override { return 0; }
  std::int64_t max_offset(std::string_view, std::int32_t) noexcept override { return 0; }
  Result<std::int64_t> commit_offset_of(std::string_view, std::int32_t, std::int64_t) noexcept override { return 0; }
  Result<v1::StoredSlice> read_at(std::int64_t) noexcept override { return Status::not_supported(""); }
  Result<std::int64_t> offset_by_time(std::string_view, std::int32_t, std::int64_t, v1::TimeBoundary) noexcept override {
    return 0;
  }
  Result<std::int64_t> earliest_message_time(std::string_view, std::int32_t) noexcept override { return 0; }
  Result<v1::QueryResult> query_by_key(std::string_view, std::string_view, std::int32_t, std::int64_t,
                                       std::int64_t) noexcept override {
    return v1::QueryResult{};
  }
  Status delete_topic(std::string_view) noexcept override { return Status::ok(); }
  Status flush() noexcept override { return Status::ok(); }
  Status save_metadata(std::string_view, std::string_view) noexcept override { return Status::ok(); }
  Result<std::optional<std::string>> load_metadata(std::string_view) noexcept override { return std::optional<std::string>(); }
  v1::StoreStats stats() noexcept override { return {}; }

 private:
  std::mutex mutex_;
  std::vector<std::uint8_t> log_;
  std::int64_t next_queue_offset_ = 0;
  std::int64_t reads_ = 0;
  std::size_t last_start_ = 0;
  std::vector<v1::Dispatcher*> dispatchers_;
  std::atomic<std::int64_t> on_dispatched_{-1};
};

class Recorder final : public v1::Dispatcher {
 public:
  explicit Recorder(std::string name) : name_(std::move(name)) {}
  std::string_view name() const noexcept override { return name_; }
  Status dispatch(const v1::DispatchRecord& r) noexcept override {
    std::lock_guard lock(mutex_);
    if (fail_at_ >= 0 && r.commit_offset == fail_at_) return Status::io_error("cannot write consume queue");
    seen_.push_back(name_ + ":" + std::string(r.topic) + "@" + std::to_string(r.commit_offset) + " keys=" +
                    std::string(r.keys) + " uniq=" + std::string(r.unique_key) + " tags=" + std::to_string(r.tags_code));
    return Status::ok();
  }
  std::vector<std::string> seen() {
    std::lock_guard lock(mutex_);
    return seen_;
  }
  void fail_at(std::int64_t offset) {
    std::lock_guard lock(mutex_);
    fail_at_ = offset;
  }

 private:
  std::string name_;
  std::mutex mutex_;
  std::vector<std::string> seen_;
  std::int64_t fail_at_ = -1;
};

std::string props(std::string keys, std::string uniq, std::string tags) {
  return v1::encode_properties({{"KEYS", keys}, {"UNIQ_KEY", uniq}, {"TAGS", tags}});
}

TEST(DispatchPipelineTest, StoreDispatchersRunBeforeKernelDispatchersInRecordOrder) {
  Recorder store_side("cq"), kernel_side("longpoll");
  auto store = std::make_shared<VectorStore>(std::vector<v1::Dispatcher*>{&store_side});
  store->add("T", props("k1", "U1", "TagA"));
  store->add("T2", props("k2 k3", "U2", ""));
  DispatchPipeline pipeline(store);
  pipeline.add_dispatcher(&kernel_side);
  ASSERT_TRUE(pipeline.dispatch_until_caught_up().is_ok());
  EXPECT_EQ(pipeline.dispatched_offset(), store->size());
  EXPECT_EQ(store->last_on_dispatched(), store->size());
  const auto seen = store_side.seen();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], "cq:T@0 keys=k1 uniq=U1 tags=2598919");
  EXPECT_EQ(seen[1].rfind("cq:T2@", 0), 0u);
  EXPECT_NE(seen[1].find("keys=k2 k3 uniq=U2 tags=0"), std::string::npos);
  EXPECT_EQ(kernel_side.seen().size(), 2u);
}

TEST(DispatchPipelineTest, ThreadFollowsAppendsAndStops) {
  Recorder cq("cq");
  auto store = std::make_shared<VectorStore>(std::vector<v1::Dispatcher*>{&cq});
  DispatchPipeline pipeline(store);
  pipeline.start(0);
  for (int i = 0; i < 50; ++i) {
    store->add("T", props("k", "u" + std::to_string(i), "x"));
    pipeline.notify_appended();
  }
  ASSERT_TRUE(pipeline.wait_dispatched(store->size(), std::chrono::seconds(10)));
  pipeline.stop();
  EXPECT_EQ(cq.seen().size(), 50u);
}

TEST(DispatchPipelineTest, AnIdleReputThreadPollsLessAndLessButStillFindsUnnotifiedRecords) {
  Recorder cq("cq");
  auto store = std::make_shared<VectorStore>(std::vector<v1::Dispatcher*>{&cq});
  DispatchPipeline pipeline(store,
                            {.idle_wait = std::chrono::milliseconds(1), .idle_wait_max = std::chrono::milliseconds(16)});
  pipeline.start(0);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // backs off to the longest wait
  const std::int64_t reads_before = store->reads();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const std::int64_t idle_reads = store->reads() - reads_before;
  // 300 ms at 16 ms a round is about 19 reads; polling every 1 ms would have made up to 300.
  EXPECT_LE(idle_reads, 40) << "the idle poll did not back off";
  // A record that became readable without a notification (a pool's commit of a WAIT=false
  // append) is still found by the poll.
  store->add("T", props("k", "unnotified", "x"));
  EXPECT_TRUE(pipeline.wait_dispatched(store->size(), std::chrono::seconds(10)));
  pipeline.stop();
  EXPECT_EQ(cq.seen().size(), 1u);
}

// Notes the thread each record was dispatched on, and can run code from inside dispatch().
class ThreadRecorder final : public v1::Dispatcher {
 public:
  std::string_view name() const noexcept override { return "threads"; }
  Status dispatch(const v1::DispatchRecord& r) noexcept override {
    if (inside) inside();
    std::lock_guard lock(mutex_);
    offsets_.push_back(r.commit_offset);
    threads_.push_back(std::this_thread::get_id());
    return Status::ok();
  }
  std::vector<std::int64_t> offsets() {
    std::lock_guard lock(mutex_);
    return offsets_;
  }
  std::size_t count_on(std::thread::id id) {
    std::lock_guard lock(mutex_);
    return static_cast<std::size_t>(std::count(threads_.begin(), threads_.end(), id));
  }
  std::function<void()> inside;

 private:
  std::mutex mutex_;
  std::vector<std::int64_t> offsets_;
  std::vector<std::thread::id> threads_;
};

TEST(DispatchPipelineTest, AnIdlePipelineDispatchesOnTheNotifyingThread) {
  ThreadRecorder recorder;
  auto store = std::make_shared<VectorStore>(std::vector<v1::Dispatcher*>{&recorder});
  // No idle polling: only a notification dispatches.
  DispatchPipeline pipeline(store, {.idle_wait = std::chrono::seconds(30)});
  pipeline.start(0);
  std::vector<std::int64_t> appended;
  for (int i = 0; i < 20; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // the reput thread goes idle
    appended.push_back(store->size());
    store->add("T", props("k", "u" + std::to_string(i), "x"));
    pipeline.notify_appended();
  }
  ASSERT_TRUE(pipeline.wait_dispatched(store->size(), std::chrono::seconds(10)));
  pipeline.stop();
  EXPECT_EQ(recorder.offsets(), appended) << "every record once, in commit log order";
  EXPECT_GT(recorder.count_on(std::this_thread::get_id()), 0u) << "the idle reput thread was woken every time";
}

// A sender that finds the reput thread idle dispatches for a bounded time, not the whole backlog:
// records can be slow (a queue's first message creates its files), and its answer and the
// requests after it wait meanwhile. What it leaves is the reput thread's.
TEST(DispatchPipelineTest, TheNotifyingThreadDispatchesABoundedTimeAndLeavesTheRestToTheReputThread) {
  ThreadRecorder recorder;
  recorder.inside = [] { std::this_thread::sleep_for(std::chrono::milliseconds(1)); };  // past the budget
  auto store = std::make_shared<VectorStore>(std::vector<v1::Dispatcher*>{&recorder});
  DispatchPipeline pipeline(store, {.idle_wait = std::chrono::seconds(30)});
  pipeline.start(0);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the reput thread goes idle
  for (int i = 0; i < 20; ++i) store->add("T", props("k", "u" + std::to_string(i), "x"));
  pipeline.notify_appended();
  EXPECT_LE(recorder.count_on(std::this_thread::get_id()), 1u) << "the sender dispatched the backlog itself";
  ASSERT_TRUE(pipeline.wait_dispatched(store->size(), std::chrono::seconds(10))) << "the reput thread was not woken";
  pipeline.stop();
  EXPECT_EQ(recorder.offsets().size(), 20u);
}

TEST(DispatchPipelineTest, AnAppendFromInsideADispatcherLeavesTheDispatchToTheReputThread) {
  ThreadRecorder recorder;
  auto store = std::make_shared<VectorStore>(std::vector<v1::Dispatcher*>{&recorder});
  DispatchPipeline pipeline(store, {.idle_wait = std::chrono::seconds(30)});
  int follow_ups = 0;
  recorder.inside = [&] {
    if (follow_ups++ < 3) {  // like a dispatcher that appends (a delayed message's delivery)
      store->add("T", props("k", "follow-up", "x"));
      pipeline.notify_appended();
    }
  };
  pipeline.start(0);
  store->add("T", props("k", "first", "x"));
  pipeline.notify_appended();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (recorder.offsets().size() < 4 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  pipeline.stop();
  EXPECT_EQ(recorder.offsets().size(), 4u) << "a follow-up append was not dispatched";
}

TEST(DispatchPipelineTest, DispatcherFailureStopsAtTheRecordAndResumesWithoutSkipping) {
  Recorder cq("cq");
  auto store = std::make_shared<VectorStore>(std::vector<v1::Dispatcher*>{&cq});
  store->add("T", props("a", "1", ""));
  const std::int64_t second = store->size();
  store->add("T", props("b", "2", ""));
  cq.fail_at(second);
  DispatchPipeline pipeline(store, {.error_backoff = std::chrono::milliseconds(5)});
  const Status failed = pipeline.dispatch_until_caught_up();
  EXPECT_EQ(failed.message(), "dispatcher cq: cannot write consume queue");
  EXPECT_EQ(pipeline.dispatched_offset(), second);  // the first record is done, the second is not skipped
  pipeline.start(pipeline.dispatched_offset());
  ASSERT_FALSE(pipeline.wait_dispatched(store->size(), std::chrono::milliseconds(50)));
  EXPECT_EQ(pipeline.last_error().message(), "dispatcher cq: cannot write consume queue");
  cq.fail_at(-1);
  ASSERT_TRUE(pipeline.wait_dispatched(store->size(), std::chrono::seconds(10)));
  pipeline.stop();
  EXPECT_EQ(cq.seen().size(), 2u);
}

TEST(DispatchPipelineTest, UndecodableRecordIsReportedNotSkipped) {
  Recorder cq("cq");
  auto store = std::make_shared<VectorStore>(std::vector<v1::Dispatcher*>{&cq});
  store->add("T", props("a", "1", ""));
  const std::int64_t second = store->size();
  store->add("T", props("b", "2", ""));
  store->corrupt_last_magic();
  DispatchPipeline pipeline(store);
  const Status failed = pipeline.dispatch_until_caught_up();
  EXPECT_EQ(failed.code(), v1::StatusCode::kCorruption);
  EXPECT_NE(failed.message().find("undecodable record at commit offset " + std::to_string(second)), std::string::npos)
      << failed.message();
  EXPECT_EQ(pipeline.dispatched_offset(), second);
}

TEST(DispatchPipelineTest, TagsCodeCanBeOverridden) {
  Recorder cq("cq");
  auto store = std::make_shared<VectorStore>(std::vector<v1::Dispatcher*>{&cq});
  store->add("SCHEDULE_TOPIC_XXXX", props("", "", "TagA"));
  DispatchPipeline pipeline(store);
  pipeline.set_tags_code_fn([](const v1::RecordView& r, std::string_view) { return r.store_timestamp + 5000; });
  ASSERT_TRUE(pipeline.dispatch_until_caught_up().is_ok());
  EXPECT_NE(cq.seen()[0].find("tags=6000"), std::string::npos) << cq.seen()[0];
}

}  // namespace
}  // namespace mqkit::kernel
