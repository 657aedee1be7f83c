// Helpers for the store suites: a store plugin loaded through the real registry, started, and
// fed to the kernel's dispatch pipeline as a broker would; messages that keep their own bytes;
// and small synchronous wrappers over the asynchronous append.
//
// Threads: a harness is used by one test thread at a time (the concurrency test shares one
// harness's append() between threads, which only reads harness state).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/kernel/dispatch_pipeline.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/plugin/v1/store.hpp"

namespace mqkit::testing::stores {

namespace v1 = plugin::v1;

// A message to append, owning its bytes (MessageToAppend only views them).
struct TestMessage {
  std::string topic = "TopicA";
  std::int32_t queue_id = 0;
  std::string body = "body";
  v1::Properties properties{};
  std::int32_t flag = 0;
  std::int32_t sys_flag = 0;
  std::int32_t reconsume_times = 0;
  std::int64_t prepared_transaction_offset = 0;
  std::int64_t born_timestamp = 1'700'000'000'000;
  v1::HostAddress born_host = v4_address(10, 0, 0, 7, 54321);
  v1::HostAddress store_host = v4_address(192, 168, 1, 2, 10911);

  TestMessage& tags(std::string value);
  TestMessage& keys(std::string value);
  TestMessage& unique_key(std::string value);
  TestMessage& property(std::string name, std::string value);

  // Valid while this message is neither changed nor destroyed.
  v1::MessageToAppend view() const;
  std::int32_t record_size() const { return v1::record_size(view()); }

  static v1::HostAddress v4_address(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d,
                                    std::int32_t port);

 private:
  mutable std::string encoded_properties_;
};

TestMessage message(std::string topic, std::int32_t queue_id, std::string body);

// Which stores the suite knows how to configure.
struct StoreKind {
  std::string plugin;
  bool persists = false;
  // Set on top of the suite's test configuration (a store's optional mode), before `overrides`.
  std::map<std::string, std::string> config = {};
};

// One store plugin instance plus its dispatch pipeline.
class StoreHarness {
 public:
  // `overrides` are set on top of the kind's test configuration.
  explicit StoreHarness(StoreKind kind, std::map<std::string, std::string> overrides = {});
  ~StoreHarness();
  StoreHarness(const StoreHarness&) = delete;
  StoreHarness& operator=(const StoreHarness&) = delete;

  // Whether the kind's plugin was built into this tree (the suite skips it otherwise).
  static bool built(const StoreKind& kind);

  // Loads and starts the store. With `dispatch` the pipeline runs on its own thread, as in a
  // broker; without it nothing is dispatched until start_dispatch().
  v1::Status open(bool dispatch = true);
  void start_dispatch();
  // Stops the pipeline, shuts the store down and releases it. The data directory stays.
  void close();

  v1::MessageStore& store() { return *store_; }
  const std::shared_ptr<v1::MessageStore>& store_ptr() const { return store_; }
  const v1::RecoveryReport& recovery() const { return recovery_; }

  // Appends and waits for the callback (which must come exactly once).
  v1::Result<v1::AppendResult> append(std::span<const TestMessage> batch);
  v1::Result<v1::AppendResult> append(const TestMessage& message) { return append(std::span(&message, 1)); }
  // Waits until everything appended so far is dispatched (readable by queue offset).
  bool wait_dispatched();

  // Every record of a queue from its min offset, read page by page.
  std::vector<v1::StoredSlice> read_all(std::string_view topic, std::int32_t queue_id);
  v1::ReadResult read(std::string_view topic, std::int32_t queue_id, std::int64_t offset, std::int32_t max_count = 32,
                      std::int64_t max_bytes = 256 * 1024, std::span<const std::int32_t> tag_codes = {});

 private:
  StoreKind kind_;
  std::map<std::string, std::string> config_;
  std::filesystem::path directory_;
  std::shared_ptr<v1::MessageStore> store_;
  std::unique_ptr<kernel::DispatchPipeline> pipeline_;
  v1::RecoveryReport recovery_{};
  bool dispatching_ = false;
};

// The record a slice holds, decoded with its body CRC checked; fails the test when it is not one.
std::optional<v1::RecordView> decode(const v1::StoredSlice& slice);
// Checks every field a store copies from the message.
void expect_record_of(const v1::RecordView& record, const TestMessage& sent);

std::int32_t tag_code(std::string_view tag);
std::int64_t now_ms();
// Returns once the wall clock (ms) is past `timestamp_ms`: messages appended afterwards get a
// later store timestamp.
void wait_for_clock_after(std::int64_t timestamp_ms);

inline std::string_view text(std::span<const std::uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace mqkit::testing::stores

namespace mqkit::plugin::v1 {
// Lets GoogleTest print read statuses by name.
void PrintTo(ReadStatus status, std::ostream* os);
}  // namespace mqkit::plugin::v1
