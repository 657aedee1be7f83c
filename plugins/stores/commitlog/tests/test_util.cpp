#include "test_util.hpp"

#include <cstdlib>

#include "append_and_wait.hpp"

#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>

namespace mqkit::plugins::stores::commitlog::testing {

namespace {
constexpr auto kWaitLimit = std::chrono::seconds(10);
}  // namespace

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "mqkit-commitlog-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

void CapturingHost::log(v1::LogLevel level, std::string_view plugin, std::string_view message) noexcept {
  static const bool echo = std::getenv("MQKIT_TEST_LOG") != nullptr;
  static constexpr const char* kLevels[] = {"trace", "debug", "info", "warn", "error"};
  std::string line = std::string(kLevels[static_cast<int>(level)]) + " [" + std::string(plugin) + "] " +
                     std::string(message);
  if (echo) std::cerr << line << "\n";
  std::lock_guard lock(mutex_);
  lines_.push_back(std::move(line));
}

std::vector<std::string> CapturingHost::lines() const {
  std::lock_guard lock(mutex_);
  return lines_;
}

bool CapturingHost::logged(std::initializer_list<std::string_view> parts) const {
  std::lock_guard lock(mutex_);
  return std::any_of(lines_.begin(), lines_.end(), [&](const std::string& line) {
    return std::all_of(parts.begin(), parts.end(),
                       [&](std::string_view part) { return line.find(part) != std::string::npos; });
  });
}

Message& Message::keys(std::string value) {
  properties.emplace_back(std::string(v1::property::kKeys), std::move(value));
  return *this;
}
Message& Message::unique_key(std::string value) {
  properties.emplace_back(std::string(v1::property::kUniqueKey), std::move(value));
  return *this;
}
Message& Message::tags(std::string value) {
  properties.emplace_back(std::string(v1::property::kTags), std::move(value));
  return *this;
}

v1::MessageToAppend Message::view() const {
  encoded_ = v1::encode_properties(properties);
  v1::MessageToAppend out;
  out.topic = topic;
  out.queue_id = queue_id;
  out.sys_flag = sys_flag;
  out.born_timestamp = 1'700'000'000'000;
  out.born_host.ip = {10, 0, 0, 1};
  out.born_host.port = 5000;
  out.store_host.ip = {10, 0, 0, 2};
  out.store_host.port = 10911;
  out.body = {reinterpret_cast<const std::uint8_t*>(body.data()), body.size()};
  out.properties = encoded_;
  return out;
}

Message message(std::string topic, std::int32_t queue_id, std::string body) {
  Message m;
  m.topic = std::move(topic);
  m.queue_id = queue_id;
  m.body = std::move(body);
  return m;
}

StoreOptions small_options(const std::string& dir) {
  StoreOptions o;
  o.store_path = dir;
  o.commit_log_file_size = 64 * 1024;
  o.consume_queue_file_size = 20 * 64;
  o.flush_interval_commit_log = std::chrono::milliseconds(20);
  o.flush_commit_log_thorough_interval = std::chrono::milliseconds(200);
  o.flush_interval_consume_queue = std::chrono::milliseconds(50);
  o.flush_consume_queue_thorough_interval = std::chrono::milliseconds(200);
  o.clean_resource_interval = std::chrono::hours(1);  // tests run retention by hand
  o.delete_commit_log_files_interval = std::chrono::milliseconds(0);
  o.delete_when_hours = {};
  o.max_hash_slot_num = 64;
  o.max_index_num = 256;
  o.max_message_size = 16 * 1024;
  // The whole suite runs a second time with the transient store pool (tests/CMakeLists.txt):
  // one 64 KiB buffer (a file's size), so the writer often waits for room and commits itself.
  if (const char* pool = std::getenv("MQKIT_TEST_TRANSIENT_STORE_POOL"); pool != nullptr && std::string(pool) == "1") {
    o.transient_store_pool_enable = true;
    o.transient_store_pool_size = 1;
    o.commit_interval_commit_log = std::chrono::milliseconds(10);
    o.commit_commit_log_thorough_interval = std::chrono::milliseconds(20);
  }
  return o;
}

TestStore::TestStore(StoreOptions options, std::shared_ptr<Env> env)
    : options_(std::move(options)), env_(std::move(env)) {}

TestStore::~TestStore() { close(); }

v1::Result<v1::RecoveryReport> TestStore::open(bool dispatch) {
  store_ = std::make_shared<CommitLogStore>(host_, options_, env_);
  auto report = store_->start();
  if (!report.is_ok()) return report;
  recovery_ = *report;
  pipeline_ = std::make_unique<kernel::DispatchPipeline>(store_);
  if (dispatch) pipeline_->start(recovery_.dispatch_from_offset);
  return report;
}

void TestStore::close() {
  if (pipeline_) pipeline_->stop();
  pipeline_.reset();
  if (store_) store_->shutdown();
  store_.reset();
}

void TestStore::crash() {
  if (pipeline_) pipeline_->stop();
  pipeline_.reset();
  if (store_) store_->simulate_crash();
  store_.reset();
}

v1::Result<v1::AppendResult> TestStore::append(std::span<const Message> batch, v1::AppendOptions options) {
  std::vector<v1::MessageToAppend> views;
  for (const auto& m : batch) views.push_back(m.view());
  auto result = append_and_wait(*store_, views, options);
  if (pipeline_) pipeline_->notify_appended();
  if (result.is_ok()) {
    std::int64_t last = last_commit_offset_.load();
    while (last < result->commit_offset && !last_commit_offset_.compare_exchange_weak(last, result->commit_offset)) {
    }
  }
  return result;
}

bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

bool TestStore::wait_committed() {
  const std::int64_t last = last_commit_offset_.load();
  if (last < 0) return true;
  const auto deadline = std::chrono::steady_clock::now() + kWaitLimit;
  // Dispatch reads only committed bytes (read_at also finds records still in the pool).
  const auto committed = [&] {
    auto chunk = store_->read_for_dispatch(last, 1);
    return chunk.is_ok() && !chunk->bytes.bytes.empty();
  };
  while (!committed()) {
    if (std::chrono::steady_clock::now() > deadline) {
      ADD_FAILURE() << "the record at commit offset " << last << " was never committed";
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

bool TestStore::wait_dispatched() {
  const std::int64_t target = store_->stats().commit_log_max_offset;
  pipeline_->notify_appended();
  const bool reached = pipeline_->wait_dispatched(target, kWaitLimit);
  EXPECT_TRUE(reached) << "dispatch stuck at " << pipeline_->dispatched_offset() << " of " << target << ": "
                       << pipeline_->last_error().to_string();
  return reached;
}

std::vector<std::string> TestStore::bodies(std::string_view topic, std::int32_t queue_id) {
  std::vector<std::string> out;
  std::int64_t offset = store_->min_offset(topic, queue_id);
  while (true) {
    v1::ReadRequest request;
    request.topic = topic;
    request.queue_id = queue_id;
    request.offset = offset;
    auto page = store_->read(request);
    if (!page.is_ok() || page->status != v1::ReadStatus::kFound) break;
    for (const auto& slice : page->records) out.push_back(body_of(slice));
    offset = page->next_begin_offset;
  }
  return out;
}

std::string_view text(std::span<const std::uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

std::string body_of(const v1::StoredSlice& slice) {
  auto record = v1::decode_record(slice.bytes, v1::CrcCheck::kVerify);
  EXPECT_TRUE(record.is_ok()) << record.status().to_string();
  return record.is_ok() ? std::string(text(record->body)) : std::string("<corrupt>");
}

std::vector<std::uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void patch_file(const std::string& path, std::int64_t offset, std::span<const std::uint8_t> bytes) {
  std::fstream out(path, std::ios::binary | std::ios::in | std::ios::out);
  ASSERT_TRUE(out.good()) << path;
  out.seekp(offset);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::vector<std::string> list_dir(const std::string& path) {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(path, error)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

std::int64_t allocated_bytes(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return static_cast<std::int64_t>(st.st_blocks) * 512;
}

}  // namespace mqkit::plugins::stores::commitlog::testing
