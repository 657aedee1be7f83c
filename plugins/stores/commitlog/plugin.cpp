// The commitlog store plugin: RocketMQ's DefaultMessageStore layout on memory-mapped files.
#include "mqkit/plugin/v1/plugin.hpp"
#include "options.hpp"
#include "store.hpp"

namespace {

constexpr const char* kAliases[] = {"DefaultMessageStore", "org.apache.rocketmq.store.DefaultMessageStore", nullptr};

}  // namespace

MQKIT_PLUGIN(MessageStore, ::mqkit::plugins::stores::commitlog::CommitLogStore, "commitlog", kAliases, "1.0.0",
             "RocketMQ-compatible commit log, consume queues and key index on memory-mapped files",
             ::mqkit::plugins::stores::commitlog::kConfigSchema)
