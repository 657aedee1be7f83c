#include "queue_stats.hpp"

#include <unistd.h>

#include <set>

#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/plugin/v1/runtime_figures.hpp"
#include "mqkit/protocol/codes.hpp"

namespace mqkit::broker {

namespace {

// Store time of the record at a commit log offset, 0 when it is gone.
std::int64_t record_store_time(plugin::v1::MessageStore& store, std::int64_t commit_offset) {
  const auto record = store.read_at(commit_offset);
  if (!record) return 0;
  const auto decoded = plugin::v1::decode_record(record->bytes);
  return decoded ? decoded->store_timestamp : 0;
}

}  // namespace

std::int64_t message_store_time(plugin::v1::MessageStore& store, const std::string& topic, std::int32_t queue_id,
                                std::int64_t queue_offset) {
  const auto commit_offset = store.commit_offset_of(topic, queue_id, queue_offset);
  return commit_offset ? record_store_time(store, *commit_offset) : 0;
}

protocol::ConsumeStats consume_stats(const BrokerContext& context, const std::string& group, const std::string& topic) {
  const std::set<std::string> topics = topic.empty() ? context.offsets->topics_of_group(group) : std::set{topic};
  const auto members = context.consumers->find(group);
  protocol::ConsumeStats stats;
  for (const auto& name : topics) {
    const auto config = context.topics->find(name);
    if (!config) continue;
    if (members && !members->subscriptions.empty() && !members->subscriptions.count(name)) continue;
    stats.consume_tps += context.stats->group_get_tps(name, group, context.clock());  // RocketMQ sums it over the topics
    for (std::int32_t queue_id = 0; queue_id < config->read_queue_nums; ++queue_id) {
      protocol::OffsetWrapper progress;
      progress.broker_offset = std::max<std::int64_t>(0, context.store->max_offset(name, queue_id));
      progress.consumer_offset = std::max<std::int64_t>(0, context.offsets->query(group, name, queue_id).value_or(0));
      if (progress.consumer_offset > 0) {
        progress.last_timestamp = message_store_time(*context.store, name, queue_id, progress.consumer_offset - 1);
      }
      stats.offset_table[{name, context.config->broker_name, queue_id}] = progress;
    }
  }
  return stats;
}

protocol::ConsumeStatsList broker_consume_stats(const BrokerContext& context, bool only_ordered) {
  protocol::ConsumeStatsList list;
  list.broker_addr = context.config->address();
  for (const auto& [group, settings] : context.groups->all()) {
    std::vector<protocol::ConsumeStats> per_topic;
    for (const auto& topic : context.offsets->topics_of_group(group)) {
      const auto config = context.topics->find(topic);
      if (!config || (only_ordered && !config->order)) continue;
      protocol::ConsumeStats stats = consume_stats(context, group, topic);
      if (stats.offset_table.empty()) continue;  // a topic the group no longer subscribes to
      list.total_diff += protocol::total_diff(stats);
      per_topic.push_back(std::move(stats));
    }
    list.consume_stats_list.push_back({{group, std::move(per_topic)}});
  }
  return list;
}

protocol::TopicStatsTable topic_stats(const BrokerContext& context, const protocol::TopicConfig& topic) {
  protocol::TopicStatsTable stats;
  for (std::int32_t queue_id = 0; queue_id < topic.write_queue_nums; ++queue_id) {
    protocol::TopicOffset range;
    range.min_offset = std::max<std::int64_t>(0, context.store->min_offset(topic.topic_name, queue_id));
    range.max_offset = std::max<std::int64_t>(0, context.store->max_offset(topic.topic_name, queue_id));
    if (range.max_offset > 0) {
      range.last_update_timestamp = message_store_time(*context.store, topic.topic_name, queue_id, range.max_offset - 1);
    }
    stats.offset_table[{topic.topic_name, context.config->broker_name, queue_id}] = range;
  }
  return stats;
}

std::int64_t flush_behind_bytes(const plugin::v1::StoreStats& store) {
  return std::max<std::int64_t>(0, store.commit_log_max_offset - store.flushed_offset);
}

std::int64_t dispatch_behind_bytes(const plugin::v1::StoreStats& store) {
  return std::max<std::int64_t>(0, store.commit_log_max_offset - store.dispatched_offset);
}

std::int64_t earliest_message_time(plugin::v1::MessageStore& store, const plugin::v1::StoreStats& stats) {
  return stats.commit_log_max_offset > stats.commit_log_min_offset ? record_store_time(store, stats.commit_log_min_offset)
                                                                    : 0;
}

namespace {

// RocketMQ's "[ 1 days, 2 hours, 3 minutes, 4 seconds ]" (StoreStatsService's runtime).
std::string format_runtime(std::int64_t ms) {
  const std::int64_t seconds = std::max<std::int64_t>(0, ms) / 1000;
  return "[ " + std::to_string(seconds / 86'400) + " days, " + std::to_string(seconds % 86'400 / 3600) + " hours, " +
         std::to_string(seconds % 3600 / 60) + " minutes, " + std::to_string(seconds % 60) + " seconds ]";
}

}  // namespace

protocol::KvTable runtime_info(const BrokerContext& context) {
  const plugin::v1::StoreStats store = context.store->stats();
  protocol::KvTable info;
  auto& t = info.table;
  t["brokerVersion"] = std::to_string(protocol::version::kV4_9_4);
  t["brokerVersionDesc"] = "V4_9_4";
  t["brokerActive"] = "true";
  t["bootTimestamp"] = std::to_string(context.boot_timestamp_ms);
  t["runtime"] = format_runtime(context.clock() - context.boot_timestamp_ms);
  t["commitLogMinOffset"] = std::to_string(store.commit_log_min_offset);
  t["commitLogMaxOffset"] = std::to_string(store.commit_log_max_offset);
  t["commitLogDiskRatio"] = std::to_string(store.disk_used_ratio);
  // The machine's memory, as RocketMQ reports it (its exportMetrics reads it).
  t["totalMemKBytes"] = std::to_string(static_cast<std::int64_t>(::sysconf(_SC_PHYS_PAGES)) *
                                       static_cast<std::int64_t>(::sysconf(_SC_PAGESIZE)) / 1024);
  t["dispatchBehindBytes"] = std::to_string(dispatch_behind_bytes(store));
  t["flushBehindBytes"] = std::to_string(flush_behind_bytes(store));
  t["storeWritable"] = store.writable ? "true" : "false";
  t["storeMemoryBytes"] = std::to_string(store.memory_bytes);
  t["earliestMessageTimeStamp"] = std::to_string(earliest_message_time(*context.store, store));
  t["consumerGroupCount"] = std::to_string(context.consumers->groups().size());
  t["topicCount"] = std::to_string(context.topics->snapshot().topic_config_table.size());
  if (const auto* clock = static_cast<const plugin::v1::PutLockClock*>(context.store->extension(plugin::v1::kPutLockClockId))) {
    t["pageCacheLockTimeMills"] = std::to_string(clock->held_ms(context.clock()));
  }
  if (context.request_queue) {
    // One queue serves every kind of request, so the send and pull figures are the same.
    const auto queue = context.request_queue->figures();
    for (const char* pool : {"send", "pull"}) {
      t[std::string(pool) + "ThreadPoolQueueSize"] = std::to_string(queue.queued);
      t[std::string(pool) + "ThreadPoolQueueHeadWaitTimeMills"] = std::to_string(queue.head_wait_ms);
    }
  }
  context.stats->add_to(info);
  return info;
}

}  // namespace mqkit::broker
