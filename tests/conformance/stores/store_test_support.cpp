#include "store_test_support.hpp"

#include <stdlib.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <sstream>
#include <thread>
#include <utility>

#include "mqkit/kernel/plugin_registry.hpp"
#include "plugin_fixture.hpp"

namespace mqkit::testing::stores {

namespace {

// Small files so that a suite run crosses file boundaries quickly. Each is set only when the
// store declares the key and the value is within the declared bounds, so one list serves stores
// with different schemas.
struct SizeHint {
  const char* key;
  std::int64_t value;
};
constexpr SizeHint kSmallSizes[] = {
    {"mapped_file_size_commit_log", 1 << 20},
    {"mapped_file_size_consume_queue", 20 * 1000},
    {"max_hash_slot_num", 1000},
    {"max_index_num", 4000},
};
// Where a disk store keeps its files; it gets a fresh temporary directory.
constexpr const char* kPathKeys[] = {"store_path", "store_path_root_dir"};

constexpr auto kWaitLimit = std::chrono::seconds(10);

// A registry of our own, only to read store schemas (plugin_fixture creates the objects).
const kernel::PluginRegistry& schema_registry() {
  static const auto* registry = [] {
    auto* r = new kernel::PluginRegistry({MQKIT_PLUGIN_DIR});
    (void)r->discover();
    return r;
  }();
  return *registry;
}

std::vector<std::string> built_stores() {
  std::vector<std::string> names;
  std::stringstream list(MQKIT_BUILT_STORES);
  for (std::string name; std::getline(list, name, ',');) names.push_back(name);
  return names;
}

std::filesystem::path make_temp_directory() {
  std::string pattern = (std::filesystem::temp_directory_path() / "mqkit-store-test-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    ADD_FAILURE() << "mkdtemp failed for " << pattern;
    return {};
  }
  return pattern;
}

}  // namespace

TestMessage& TestMessage::tags(std::string value) { return property(std::string(v1::property::kTags), std::move(value)); }
TestMessage& TestMessage::keys(std::string value) { return property(std::string(v1::property::kKeys), std::move(value)); }
TestMessage& TestMessage::unique_key(std::string value) {
  return property(std::string(v1::property::kUniqueKey), std::move(value));
}
TestMessage& TestMessage::property(std::string name, std::string value) {
  properties.emplace_back(std::move(name), std::move(value));
  return *this;
}

v1::MessageToAppend TestMessage::view() const {
  encoded_properties_ = v1::encode_properties(properties);
  v1::MessageToAppend out;
  out.topic = topic;
  out.queue_id = queue_id;
  out.flag = flag;
  out.sys_flag = sys_flag;
  out.born_timestamp = born_timestamp;
  out.born_host = born_host;
  out.store_host = store_host;
  out.reconsume_times = reconsume_times;
  out.prepared_transaction_offset = prepared_transaction_offset;
  out.body = {reinterpret_cast<const std::uint8_t*>(body.data()), body.size()};
  out.properties = encoded_properties_;
  return out;
}

v1::HostAddress TestMessage::v4_address(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d,
                                        std::int32_t port) {
  v1::HostAddress address;
  address.ip = {a, b, c, d};
  address.port = port;
  return address;
}

TestMessage message(std::string topic, std::int32_t queue_id, std::string body) {
  TestMessage m;
  m.topic = std::move(topic);
  m.queue_id = queue_id;
  m.body = std::move(body);
  return m;
}

bool StoreHarness::built(const StoreKind& kind) {
  const auto names = built_stores();
  return std::find(names.begin(), names.end(), kind.plugin) != names.end();
}

StoreHarness::StoreHarness(StoreKind kind, std::map<std::string, std::string> overrides) : kind_(std::move(kind)) {
  if (auto plugin = schema_registry().find(v1::Category::kStore, kind_.plugin)) {
    const v1::ConfigSchema schema = (*plugin)->manifest->schema();
    for (const SizeHint& hint : kSmallSizes) {
      const v1::ConfigField* field = schema.find(hint.key);
      const auto value = static_cast<double>(hint.value);
      if (field != nullptr && value >= field->min && value <= field->max) {
        config_[hint.key] = std::to_string(hint.value);
      }
    }
    for (const char* key : kPathKeys) {
      if (schema.find(key) == nullptr) continue;
      directory_ = make_temp_directory();
      config_[key] = directory_.string();
      break;
    }
  }
  for (const auto& [key, value] : kind_.config) config_[key] = value;
  for (auto& [key, value] : overrides) config_[key] = std::move(value);
}

StoreHarness::~StoreHarness() {
  close();
  if (!directory_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(directory_, ignored);
  }
}

v1::Status StoreHarness::open(bool dispatch) {
  MQKIT_ASSIGN_OR_RETURN(auto object, try_load_plugin_object(v1::Category::kStore, kind_.plugin, config_));
  store_ = std::static_pointer_cast<v1::MessageStore>(std::move(object));
  MQKIT_ASSIGN_OR_RETURN(recovery_, store_->start());
  pipeline_ = std::make_unique<kernel::DispatchPipeline>(store_);
  if (dispatch) start_dispatch();
  return v1::Status::ok();
}

void StoreHarness::start_dispatch() {
  pipeline_->start(recovery_.dispatch_from_offset);
  dispatching_ = true;
}

void StoreHarness::close() {
  if (pipeline_) pipeline_->stop();
  pipeline_.reset();
  dispatching_ = false;
  if (store_) store_->shutdown();
  store_.reset();
}

v1::Result<v1::AppendResult> StoreHarness::append(std::span<const TestMessage> batch) {
  std::vector<v1::MessageToAppend> views;
  for (const TestMessage& m : batch) views.push_back(m.view());
  // Shared with the callback, which may run on another thread, even after a timeout here.
  struct Outcome {
    std::mutex mutex;
    std::condition_variable done;
    std::optional<v1::Result<v1::AppendResult>> result;
    int calls = 0;
  };
  auto outcome = std::make_shared<Outcome>();
  store_->append(views, {}, [outcome](v1::Result<v1::AppendResult> result) {
    std::lock_guard lock(outcome->mutex);
    if (++outcome->calls == 1) outcome->result.emplace(std::move(result));
    outcome->done.notify_all();
  });
  std::unique_lock lock(outcome->mutex);
  if (!outcome->done.wait_for(lock, kWaitLimit, [&] { return outcome->result.has_value(); })) {
    return v1::Status::timeout("append callback not called within 10 s");
  }
  EXPECT_EQ(outcome->calls, 1) << "append callback called more than once";
  if (outcome->result->is_ok() && dispatching_) pipeline_->notify_appended();
  return std::move(*outcome->result);
}

bool StoreHarness::wait_dispatched() {
  EXPECT_TRUE(dispatching_) << "waiting for dispatch that was never started";
  const std::int64_t target = store_->stats().commit_log_max_offset;
  pipeline_->notify_appended();
  const bool reached = pipeline_->wait_dispatched(target, kWaitLimit);
  EXPECT_TRUE(reached) << "dispatch stuck at " << pipeline_->dispatched_offset() << " of " << target << ": "
                       << pipeline_->last_error().to_string();
  return reached;
}

v1::ReadResult StoreHarness::read(std::string_view topic, std::int32_t queue_id, std::int64_t offset,
                                  std::int32_t max_count, std::int64_t max_bytes,
                                  std::span<const std::int32_t> tag_codes) {
  v1::ReadRequest request;
  request.topic = topic;
  request.queue_id = queue_id;
  request.offset = offset;
  request.max_count = max_count;
  request.max_bytes = max_bytes;
  request.tag_codes = tag_codes;
  auto result = store_->read(request);
  EXPECT_TRUE(result.is_ok()) << result.status().to_string();
  return result.is_ok() ? std::move(result).value() : v1::ReadResult{};
}

std::vector<v1::StoredSlice> StoreHarness::read_all(std::string_view topic, std::int32_t queue_id) {
  std::vector<v1::StoredSlice> records;
  std::int64_t offset = store_->min_offset(topic, queue_id);
  while (true) {
    v1::ReadResult page = read(topic, queue_id, offset);
    if (page.status != v1::ReadStatus::kFound) break;
    for (auto& record : page.records) records.push_back(std::move(record));
    offset = page.next_begin_offset;
  }
  return records;
}

std::optional<v1::RecordView> decode(const v1::StoredSlice& slice) {
  auto record = v1::decode_record(slice.bytes, v1::CrcCheck::kVerify);
  EXPECT_TRUE(record.is_ok()) << record.status().to_string();
  if (!record) return std::nullopt;
  EXPECT_EQ(static_cast<std::size_t>(record->total_size), slice.bytes.size()) << "a slice must hold one whole record";
  return std::move(record).value();
}

void expect_record_of(const v1::RecordView& record, const TestMessage& sent) {
  EXPECT_EQ(record.magic, v1::kMessageMagicV1);
  EXPECT_EQ(record.topic, sent.topic);
  EXPECT_EQ(record.queue_id, sent.queue_id);
  EXPECT_EQ(text(record.body), sent.body);
  EXPECT_EQ(v1::decode_properties(record.properties), sent.properties);
  EXPECT_EQ(record.flag, sent.flag);
  EXPECT_EQ(record.sys_flag & ~(v1::sys_flag::kBornHostV6 | v1::sys_flag::kStoreHostV6), sent.sys_flag);
  EXPECT_EQ(record.born_timestamp, sent.born_timestamp);
  EXPECT_EQ(v1::to_string(record.born_host), v1::to_string(sent.born_host));
  EXPECT_EQ(v1::to_string(record.store_host), v1::to_string(sent.store_host));
  EXPECT_EQ(record.reconsume_times, sent.reconsume_times);
  EXPECT_EQ(record.prepared_transaction_offset, sent.prepared_transaction_offset);
  EXPECT_EQ(record.body_crc, v1::body_crc(record.body));
}

std::int32_t tag_code(std::string_view tag) { return static_cast<std::int32_t>(v1::tags_code_of(tag)); }

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void wait_for_clock_after(std::int64_t timestamp_ms) {
  while (now_ms() <= timestamp_ms) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

}  // namespace mqkit::testing::stores

namespace mqkit::plugin::v1 {

void PrintTo(ReadStatus status, std::ostream* os) {
  static constexpr const char* kNames[] = {
      "kFound",           "kNoMatchedMessage",    "kMessageWasRemoving",  "kOffsetFoundNull",  "kOffsetOverflowBadly",
      "kOffsetOverflowOne", "kOffsetTooSmall", "kNoMatchedLogicQueue", "kNoMessageInQueue"};
  const auto index = static_cast<std::size_t>(status);
  *os << (index < std::size(kNames) ? kNames[index] : "ReadStatus(?)");
}

}  // namespace mqkit::plugin::v1
