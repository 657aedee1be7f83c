#include "mqkit/protocol/bodies.hpp"

#include "body_codec.hpp"
#include "mqkit/protocol/json_writer.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cctype>
#include <charconv>
#include <functional>
#include <utility>

namespace mqkit::protocol {

namespace {

using json::key;
using json::str;
using json::write_json;
using json::Writer;
using Value = rapidjson::Value;
using detail::Fields;
using detail::parse;
using detail::read_string_item;
using detail::read_subscription;
using detail::wrong;
using detail::write;

// ---------------------------------------------------------------------------------------------
// Writing

void write(Writer& w, const DataVersion& v) {
  w.StartObject();
  key(w, "counter"), w.Int64(v.counter);
  key(w, "stateVersion"), w.Int64(v.state_version);
  key(w, "timestamp"), w.Int64(v.timestamp);
  w.EndObject();
}

void write(Writer& w, const TopicConfig& t) {
  w.StartObject();
  key(w, "attributes"), w.StartObject();
  for (const auto& [k, v] : t.attributes) key(w, k), str(w, v);
  w.EndObject();
  key(w, "order"), w.Bool(t.order);
  key(w, "perm"), w.Int(t.perm);
  key(w, "readQueueNums"), w.Int(t.read_queue_nums);
  key(w, "topicFilterType"), str(w, t.topic_filter_type);
  key(w, "topicName"), str(w, t.topic_name);
  key(w, "topicSysFlag"), w.Int(t.topic_sys_flag);
  key(w, "writeQueueNums"), w.Int(t.write_queue_nums);
  w.EndObject();
}

void write(Writer& w, const TopicConfigTable& t) {
  w.StartObject();
  key(w, "dataVersion"), write(w, t.data_version);
  key(w, "topicConfigTable"), w.StartObject();
  for (const auto& [name, config] : t.topic_config_table) key(w, name), write(w, config);
  w.EndObject();
  w.EndObject();
}

void write(Writer& w, const MessageQueue& q) {
  w.StartObject();
  key(w, "brokerName"), str(w, q.broker_name);
  key(w, "queueId"), w.Int(q.queue_id);
  key(w, "topic"), str(w, q.topic);
  w.EndObject();
}

void write_string_map(Writer& w, std::string_view name, const std::map<std::string, std::string>& map) {
  key(w, name), w.StartObject();
  for (const auto& [k, v] : map) key(w, k), str(w, v);
  w.EndObject();
}

// Broker ids become map keys; the legacy style leaves them unquoted, as fastjson does. No JSON
// writer does that, so the legacy object is assembled around individually written addresses
// (marking keys and unquoting them afterwards would also unquote a string that held the mark).
void write_broker_addrs(Writer& w, const BrokerData& b, JsonStyle style) {
  if (style == JsonStyle::kStandard) {
    w.StartObject();
    for (const auto& [id, addr] : b.broker_addrs) key(w, std::to_string(id)), str(w, addr);
    w.EndObject();
    return;
  }
  std::string raw = "{";
  for (const auto& [id, addr] : b.broker_addrs) {
    if (raw.size() > 1) raw += ',';
    raw += std::to_string(id);
    raw += ':';
    raw += write_json([&](Writer& vw) { str(vw, addr); });
  }
  raw += '}';
  w.RawValue(raw.data(), raw.size(), rapidjson::kObjectType);
}

void write(Writer& w, const BrokerData& b, JsonStyle style) {
  w.StartObject();
  key(w, "brokerAddrs"), write_broker_addrs(w, b, style);
  key(w, "brokerName"), str(w, b.broker_name);
  key(w, "cluster"), str(w, b.cluster);
  w.EndObject();
}

// ---------------------------------------------------------------------------------------------
// Reading

Result<DataVersion> read_data_version(const Value& v) {
  DataVersion out;
  Fields f(v, "DataVersion");
  MQKIT_RETURN_IF_ERROR(f.get("timestamp", out.timestamp));
  MQKIT_RETURN_IF_ERROR(f.get("counter", out.counter));
  MQKIT_RETURN_IF_ERROR(f.get("stateVersion", out.state_version));
  return out;
}

Status check_queue_nums(std::string_view what, std::string_view name, std::int32_t read, std::int32_t write) {
  for (const auto& [field, value] : {std::pair{"readQueueNums", read}, std::pair{"writeQueueNums", write}}) {
    if (value < 0 || value > kMaxQueueNums) {
      return Status::invalid_argument(std::string(what) + " of '" + std::string(name) + "': " + field + " " +
                                      std::to_string(value) + " is outside 0.." + std::to_string(kMaxQueueNums));
    }
  }
  return Status::ok();
}

Result<TopicConfig> read_topic_config(const Value& v) {
  if (!v.IsObject()) return Status::invalid_argument("TopicConfig must be an object");
  TopicConfig t;
  Fields f(v, "TopicConfig");
  MQKIT_RETURN_IF_ERROR(f.get("topicName", t.topic_name));
  MQKIT_RETURN_IF_ERROR(f.get("readQueueNums", t.read_queue_nums));
  MQKIT_RETURN_IF_ERROR(f.get("writeQueueNums", t.write_queue_nums));
  MQKIT_RETURN_IF_ERROR(f.get("perm", t.perm));
  MQKIT_RETURN_IF_ERROR(f.get("topicFilterType", t.topic_filter_type));
  MQKIT_RETURN_IF_ERROR(f.get("topicSysFlag", t.topic_sys_flag));
  MQKIT_RETURN_IF_ERROR(f.get("order", t.order));
  MQKIT_RETURN_IF_ERROR(check_queue_nums("TopicConfig", t.topic_name, t.read_queue_nums, t.write_queue_nums));
  Status error;
  if (const Value* attributes = f.object("attributes", error)) {
    for (const auto& m : attributes->GetObject()) {
      if (m.value.IsString()) t.attributes[m.name.GetString()] = m.value.GetString();
    }
  }
  MQKIT_RETURN_IF_ERROR(error);
  return t;
}

Result<TopicConfigTable> read_topic_config_table(const Value& v) {
  TopicConfigTable out;
  Fields f(v, "TopicConfigSerializeWrapper");
  Status error;
  if (const Value* dv = f.object("dataVersion", error)) {
    MQKIT_ASSIGN_OR_RETURN(out.data_version, read_data_version(*dv));
  }
  if (const Value* table = f.object("topicConfigTable", error)) {
    for (const auto& m : table->GetObject()) {
      MQKIT_ASSIGN_OR_RETURN(TopicConfig config, read_topic_config(m.value));
      if (config.topic_name.empty()) config.topic_name = m.name.GetString();
      out.topic_config_table[m.name.GetString()] = std::move(config);
    }
  }
  MQKIT_RETURN_IF_ERROR(error);
  return out;
}

Result<MessageQueue> read_message_queue(const Value& v) {
  if (!v.IsObject()) return Status::invalid_argument("MessageQueue must be an object");
  MessageQueue q;
  Fields f(v, "MessageQueue");
  MQKIT_RETURN_IF_ERROR(f.get("topic", q.topic));
  MQKIT_RETURN_IF_ERROR(f.get("brokerName", q.broker_name));
  MQKIT_RETURN_IF_ERROR(f.get("queueId", q.queue_id));
  return q;
}

Result<BrokerData> read_broker_data(const Value& v) {
  if (!v.IsObject()) return Status::invalid_argument("BrokerData must be an object");
  BrokerData b;
  Fields f(v, "BrokerData");
  MQKIT_RETURN_IF_ERROR(f.get("cluster", b.cluster));
  MQKIT_RETURN_IF_ERROR(f.get("brokerName", b.broker_name));
  Status error;
  if (const Value* addrs = f.object("brokerAddrs", error)) {
    for (const auto& m : addrs->GetObject()) {
      std::int64_t id = 0;
      const std::string_view k(m.name.GetString(), m.name.GetStringLength());
      auto [ptr, ec] = std::from_chars(k.data(), k.data() + k.size(), id);
      if (ec != std::errc() || ptr != k.data() + k.size() || !m.value.IsString()) {
        return Status::invalid_argument("BrokerData: brokerAddrs must map broker ids to addresses");
      }
      b.broker_addrs[id] = m.value.GetString();
    }
  }
  MQKIT_RETURN_IF_ERROR(error);
  return b;
}

Status read_queue_set(const Fields& f, std::string_view name, std::set<MessageQueue>& out) {
  return f.each(name, out, [](const Value& item, std::set<MessageQueue>& set) {
    MQKIT_ASSIGN_OR_RETURN(MessageQueue q, read_message_queue(item));
    set.insert(std::move(q));
    return Status::ok();
  });
}

void write_queue_set(Writer& w, std::string_view name, const std::set<MessageQueue>& set) {
  key(w, name), w.StartArray();
  for (const auto& q : set) write(w, q);
  w.EndArray();
}

// Maps keyed by MessageQueue: fastjson writes the queue object itself as the key
// ({{"brokerName":..}:{..}}), which is not JSON but is what Java admin tools read. We write the
// same, and read it (or an array of [queue, value] pairs) after quote_bare_keys normalizes it.
template <typename V, typename WriteValue>
void write_queue_map(Writer& w, std::string_view name, const std::map<MessageQueue, V>& map, WriteValue write_value) {
  std::string raw = "{";
  for (const auto& [q, v] : map) {
    if (raw.size() > 1) raw += ',';
    raw += write_json([&](Writer& kw) { write(kw, q); });
    raw += ':';
    raw += write_json([&](Writer& vw) { write_value(vw, v); });
  }
  raw += '}';
  key(w, name), w.RawValue(raw.data(), raw.size(), rapidjson::kObjectType);
}

template <typename V, typename ReadValue>
Status read_queue_map(const Fields& f, std::string_view name, std::map<MessageQueue, V>& out, ReadValue read_value) {
  const Value* v = f.find(name);
  // An empty map stays {} (quote_bare_keys turns only object-keyed entries into pairs).
  if (!v || (v->IsObject() && v->ObjectEmpty())) return Status::ok();
  if (!v->IsArray()) return Status::invalid_argument(std::string(name) + " must be a map keyed by MessageQueue");
  for (const auto& pair : v->GetArray()) {
    if (!pair.IsArray() || pair.Size() != 2) {
      return Status::invalid_argument(std::string(name) + " entries must be [MessageQueue, value]");
    }
    MQKIT_ASSIGN_OR_RETURN(MessageQueue q, read_message_queue(pair[0]));
    MQKIT_ASSIGN_OR_RETURN(V value, read_value(pair[1]));
    out[q] = value;
  }
  return Status::ok();
}

// Offsets by queue (fastjson writes a Long as a plain number).
void write_queue_offsets(Writer& w, std::string_view name, const std::map<MessageQueue, std::int64_t>& offsets) {
  write_queue_map(w, name, offsets, [](Writer& out, std::int64_t offset) { out.Int64(offset); });
}

Status read_queue_offsets(const Fields& f, std::string_view name, std::map<MessageQueue, std::int64_t>& out) {
  return read_queue_map(f, name, out, [name](const Value& v) -> Result<std::int64_t> {
    if (!v.IsInt64()) return Status::invalid_argument(std::string(name) + ": a queue's offset must be an integer");
    return v.GetInt64();
  });
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// SubscriptionData, embedded in several bodies (body_codec.hpp)

namespace detail {

void write(json::Writer& w, const SubscriptionData& s) {
  w.StartObject();
  key(w, "classFilterMode"), w.Bool(s.class_filter_mode);
  key(w, "codeSet"), w.StartArray();
  for (const auto code : s.code_set) w.Int(code);
  w.EndArray();
  key(w, "expressionType"), str(w, s.expression_type);
  key(w, "subString"), str(w, s.sub_string);
  key(w, "subVersion"), w.Int64(s.sub_version);
  key(w, "tagsSet"), w.StartArray();
  for (const auto& tag : s.tags_set) str(w, tag);
  w.EndArray();
  key(w, "topic"), str(w, s.topic);
  w.EndObject();
}

Result<SubscriptionData> read_subscription(const Value& v) {
  if (!v.IsObject()) return Status::invalid_argument("SubscriptionData must be an object");
  SubscriptionData s;
  Fields f(v, "SubscriptionData");
  MQKIT_RETURN_IF_ERROR(f.get("topic", s.topic));
  MQKIT_RETURN_IF_ERROR(f.get("subString", s.sub_string));
  MQKIT_RETURN_IF_ERROR(f.get("subVersion", s.sub_version));
  MQKIT_RETURN_IF_ERROR(f.get("expressionType", s.expression_type));
  MQKIT_RETURN_IF_ERROR(f.get("classFilterMode", s.class_filter_mode));
  MQKIT_RETURN_IF_ERROR(f.each("tagsSet", s.tags_set, [](const Value& item, std::set<std::string>& out) {
    std::string tag;
    MQKIT_RETURN_IF_ERROR(read_string_item(item, tag, "SubscriptionData.tagsSet"));
    out.insert(std::move(tag));
    return Status::ok();
  }));
  MQKIT_RETURN_IF_ERROR(f.each("codeSet", s.code_set, [](const Value& item, std::set<std::int32_t>& out) {
    if (!item.IsInt()) return Status::invalid_argument("SubscriptionData.codeSet: expected integers");
    out.insert(item.GetInt());
    return Status::ok();
  }));
  return s;
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------

std::string encode(const DataVersion& v) {
  return write_json([&](Writer& w) { write(w, v); });
}

std::string encode_data_versions(const std::map<std::string, DataVersion>& versions) {
  return write_json([&](Writer& w) {
    w.StartObject();
    for (const auto& [name, version] : versions) key(w, name), write(w, version);
    w.EndObject();
  });
}

std::string encode(const TopicConfigTable& t) {
  return write_json([&](Writer& w) { write(w, t); });
}

std::string encode(const TopicConfig& t) {
  return write_json([&](Writer& w) { write(w, t); });
}

std::string encode_topic_config_list(const std::vector<TopicConfig>& topics) {
  return write_json([&](Writer& w) {
    w.StartObject();
    key(w, "topicConfigList"), w.StartArray();
    for (const auto& topic : topics) write(w, topic);
    w.EndArray();
    w.EndObject();
  });
}

std::string encode(const TopicRouteData& r, JsonStyle style) {
  return write_json([&](Writer& w) {
    w.StartObject();
    key(w, "brokerDatas"), w.StartArray();
    for (const auto& b : r.broker_datas) write(w, b, style);
    w.EndArray();
    key(w, "filterServerTable"), w.StartObject();
    for (const auto& [addr, servers] : r.filter_server_table) {
      key(w, addr), w.StartArray();
      for (const auto& s : servers) str(w, s);
      w.EndArray();
    }
    w.EndObject();
    if (!r.order_topic_conf.empty()) key(w, "orderTopicConf"), str(w, r.order_topic_conf);
    key(w, "queueDatas"), w.StartArray();
    for (const auto& q : r.queue_datas) {
      w.StartObject();
      key(w, "brokerName"), str(w, q.broker_name);
      key(w, "perm"), w.Int(q.perm);
      key(w, "readQueueNums"), w.Int(q.read_queue_nums);
      key(w, "topicSysFlag"), w.Int(q.topic_sys_flag);
      key(w, "writeQueueNums"), w.Int(q.write_queue_nums);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  });
}

std::string encode(const ClusterInfo& c, JsonStyle style) {
  return write_json([&](Writer& w) {
    w.StartObject();
    key(w, "brokerAddrTable"), w.StartObject();
    for (const auto& [name, b] : c.broker_addr_table) key(w, name), write(w, b, style);
    w.EndObject();
    key(w, "clusterAddrTable"), w.StartObject();
    for (const auto& [cluster, names] : c.cluster_addr_table) {
      key(w, cluster), w.StartArray();
      for (const auto& n : names) str(w, n);
      w.EndArray();
    }
    w.EndObject();
    w.EndObject();
  });
}

std::string encode(const TopicList& t) {
  return write_json([&](Writer& w) {
    w.StartObject();
    if (!t.broker_addr.empty()) key(w, "brokerAddr"), str(w, t.broker_addr);
    key(w, "topicList"), w.StartArray();
    for (const auto& topic : t.topic_list) str(w, topic);
    w.EndArray();
    w.EndObject();
  });
}

std::string encode(const KvTable& t) {
  return write_json([&](Writer& w) {
    w.StartObject();
    key(w, "table"), w.StartObject();
    for (const auto& [k, v] : t.table) key(w, k), str(w, v);
    w.EndObject();
    w.EndObject();
  });
}

std::string encode(const RegisterBrokerBody& b) {
  return write_json([&](Writer& w) {
    w.StartObject();
    key(w, "filterServerList"), w.StartArray();
    for (const auto& s : b.filter_server_list) str(w, s);
    w.EndArray();
    key(w, "topicConfigSerializeWrapper"), write(w, b.topic_config_wrapper);
    w.EndObject();
  });
}

std::string encode(const HeartbeatData& h) {
  return write_json([&](Writer& w) {
    w.StartObject();
    key(w, "clientID"), str(w, h.client_id);
    key(w, "consumerDataSet"), w.StartArray();
    for (const auto& c : h.consumer_data_set) {
      w.StartObject();
      key(w, "consumeFromWhere"), str(w, c.consume_from_where);
      key(w, "consumeType"), str(w, c.consume_type);
      key(w, "groupName"), str(w, c.group_name);
      key(w, "messageModel"), str(w, c.message_model);
      key(w, "subscriptionDataSet"), w.StartArray();
      for (const auto& s : c.subscription_data_set) write(w, s);
      w.EndArray();
      key(w, "unitMode"), w.Bool(c.unit_mode);
      w.EndObject();
    }
    w.EndArray();
    key(w, "producerDataSet"), w.StartArray();
    for (const auto& g : h.producer_groups) {
      w.StartObject();
      key(w, "groupName"), str(w, g);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  });
}

std::string encode(const ConsumerIdList& l) {
  return write_json([&](Writer& w) {
    w.StartObject();
    key(w, "consumerIdList"), w.StartArray();
    for (const auto& id : l.consumer_id_list) str(w, id);
    w.EndArray();
    w.EndObject();
  });
}

std::string encode(const GroupList& l) {
  return write_json([&](Writer& w) {
    w.StartObject();
    key(w, "groupList"), w.StartArray();
    for (const auto& group : l.group_list) str(w, group);
    w.EndArray();
    w.EndObject();
  });
}

std::string encode(const LockBatchRequest& r) {
  return write_json([&](Writer& w) {
    w.StartObject();
    key(w, "clientId"), str(w, r.client_id);
    key(w, "consumerGroup"), str(w, r.consumer_group);
    write_queue_set(w, "mqSet", r.mq_set);
    key(w, "onlyThisBroker"), w.Bool(r.only_this_broker);
    w.EndObject();
  });
}

std::string encode(const LockBatchResponse& r) {
  return write_json([&](Writer& w) {
    w.StartObject();
    write_queue_set(w, "lockOKMQSet", r.lock_ok_mq_set);
    w.EndObject();
  });
}

std::int64_t total_diff(const ConsumeStats& stats) {
  std::int64_t diff = 0;
  for (const auto& [queue, offsets] : stats.offset_table) diff += offsets.broker_offset - offsets.consumer_offset;
  return diff;
}

std::string encode(const ConsumeStats& s) {
  return write_json([&](Writer& w) {
    w.StartObject();
    key(w, "consumeTps"), w.Double(s.consume_tps);
    write_queue_map(w, "offsetTable", s.offset_table, [](Writer& out, const OffsetWrapper& o) {
      out.StartObject();
      key(out, "brokerOffset"), out.Int64(o.broker_offset);
      key(out, "consumerOffset"), out.Int64(o.consumer_offset);
      key(out, "lastTimestamp"), out.Int64(o.last_timestamp);
      out.EndObject();
    });
    w.EndObject();
  });
}

std::string encode(const ConsumeStatsList& s) {
  return write_json([&](Writer& w) {
    w.StartObject();
    key(w, "brokerAddr"), str(w, s.broker_addr);
    key(w, "consumeStatsList"), w.StartArray();
    for (const auto& groups : s.consume_stats_list) {
      w.StartObject();
      for (const auto& [group, stats] : groups) {
        key(w, group), w.StartArray();
        for (const auto& one : stats) {
          const std::string raw = encode(one);  // not plain JSON: queue objects as map keys
          w.RawValue(raw.data(), raw.size(), rapidjson::kObjectType);
        }
        w.EndArray();
      }
      w.EndObject();
    }
    w.EndArray();
    key(w, "totalDiff"), w.Int64(s.total_diff);
    w.EndObject();
  });
}

std::string encode(const TopicStatsTable& s) {
  return write_json([&](Writer& w) {
    w.StartObject();
    write_queue_map(w, "offsetTable", s.offset_table, [](Writer& out, const TopicOffset& o) {
      out.StartObject();
      key(out, "lastUpdateTimestamp"), out.Int64(o.last_update_timestamp);
      key(out, "maxOffset"), out.Int64(o.max_offset);
      key(out, "minOffset"), out.Int64(o.min_offset);
      out.EndObject();
    });
    w.EndObject();
  });
}

std::string encode(const ConsumerRunningInfo& info) {
  return write_json([&](Writer& w) {
    w.StartObject();
    key(w, "jstack"), str(w, info.jstack);
    write_queue_map(w, "mqTable", info.mq_table, [](Writer& out, const ProcessQueueInfo& p) {
      out.StartObject();
      key(out, "cachedMsgCount"), out.Int(p.cached_msg_count);
      key(out, "cachedMsgMaxOffset"), out.Int64(p.cached_msg_max_offset);
      key(out, "cachedMsgMinOffset"), out.Int64(p.cached_msg_min_offset);
      key(out, "cachedMsgSizeInMiB"), out.Int(p.cached_msg_size_in_mib);
      key(out, "commitOffset"), out.Int64(p.commit_offset);
      key(out, "droped"), out.Bool(p.dropped);
      key(out, "lastConsumeTimestamp"), out.Int64(p.last_consume_timestamp);
      key(out, "lastLockTimestamp"), out.Int64(p.last_lock_timestamp);
      key(out, "lastPullTimestamp"), out.Int64(p.last_pull_timestamp);
      key(out, "locked"), out.Bool(p.locked);
      key(out, "transactionMsgCount"), out.Int(p.transaction_msg_count);
      key(out, "transactionMsgMaxOffset"), out.Int64(p.transaction_msg_max_offset);
      key(out, "transactionMsgMinOffset"), out.Int64(p.transaction_msg_min_offset);
      key(out, "tryUnlockTimes"), out.Int64(p.try_unlock_times);
      out.EndObject();
    });
    write_string_map(w, "properties", info.properties);
    key(w, "statusTable"), w.StartObject();
    for (const auto& [topic, st] : info.status_table) {
      key(w, topic), w.StartObject();
      key(w, "consumeFailedMsgs"), w.Int64(st.consume_failed_msgs);
      key(w, "consumeFailedTPS"), w.Double(st.consume_failed_tps);
      key(w, "consumeOKTPS"), w.Double(st.consume_ok_tps);
      key(w, "consumeRT"), w.Double(st.consume_rt);
      key(w, "pullRT"), w.Double(st.pull_rt);
      key(w, "pullTPS"), w.Double(st.pull_tps);
      w.EndObject();
    }
    w.EndObject();
    key(w, "subscriptionSet"), w.StartArray();
    for (const auto& sub : info.subscription_set) write(w, sub);
    w.EndArray();
    write_string_map(w, "userConsumerInfo", info.user_consumer_info);
    w.EndObject();
  });
}

std::string encode(const ResetOffsetBody& b) {
  return write_json([&](Writer& w) {
    w.StartObject();
    write_queue_offsets(w, "offsetTable", b.offset_table);
    w.EndObject();
  });
}

std::string encode_for_cpp(const ResetOffsetBody& b) {
  return write_json([&](Writer& w) {
    w.StartObject();
    key(w, "offsetTable"), w.StartArray();
    for (const auto& [q, offset] : b.offset_table) {
      w.StartObject();
      key(w, "brokerName"), str(w, q.broker_name);
      key(w, "offset"), w.Int64(offset);
      key(w, "queueId"), w.Int(q.queue_id);
      key(w, "topic"), str(w, q.topic);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  });
}

std::string encode(const GetConsumerStatusBody& b) {
  return write_json([&](Writer& w) {
    w.StartObject();
    key(w, "consumerTable"), w.StartObject();
    for (const auto& [client_id, offsets] : b.consumer_table) write_queue_offsets(w, client_id, offsets);
    w.EndObject();
    write_queue_offsets(w, "messageQueueTable", b.message_queue_table);
    w.EndObject();
  });
}

Result<DataVersion> decode_data_version(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, parse(json, "DataVersion"));
  return read_data_version(doc);
}

Result<std::map<std::string, DataVersion>> decode_data_versions(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, parse(json, "DataVersion map"));
  std::map<std::string, DataVersion> versions;
  for (const auto& member : doc.GetObject()) {
    if (!member.value.IsObject()) return Status::invalid_argument("DataVersion map: each version must be an object");
    MQKIT_ASSIGN_OR_RETURN(versions[member.name.GetString()], read_data_version(member.value));
  }
  return versions;
}

Result<TopicConfig> decode_topic_config(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, parse(json, "TopicConfig"));
  return read_topic_config(doc);
}

Result<std::vector<TopicConfig>> decode_topic_config_list(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, parse(json, "CreateTopicListRequestBody"));
  std::vector<TopicConfig> topics;
  MQKIT_RETURN_IF_ERROR(Fields(doc, "CreateTopicListRequestBody")
                            .each("topicConfigList", topics, [](const Value& item, std::vector<TopicConfig>& out) {
                              MQKIT_ASSIGN_OR_RETURN(TopicConfig topic, read_topic_config(item));
                              out.push_back(std::move(topic));
                              return Status::ok();
                            }));
  return topics;
}

Result<TopicConfigTable> decode_topic_config_table(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, parse(json, "topic config table"));
  return read_topic_config_table(doc);
}

Result<TopicRouteData> decode_topic_route(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, parse(json, "TopicRouteData"));
  TopicRouteData r;
  Fields f(doc, "TopicRouteData");
  MQKIT_RETURN_IF_ERROR(f.get("orderTopicConf", r.order_topic_conf));
  MQKIT_RETURN_IF_ERROR(f.each("queueDatas", r.queue_datas, [](const Value& item, std::vector<QueueData>& out) {
    if (!item.IsObject()) return Status::invalid_argument("QueueData must be an object");
    QueueData q;
    Fields qf(item, "QueueData");
    MQKIT_RETURN_IF_ERROR(qf.get("brokerName", q.broker_name));
    MQKIT_RETURN_IF_ERROR(qf.get("readQueueNums", q.read_queue_nums));
    MQKIT_RETURN_IF_ERROR(qf.get("writeQueueNums", q.write_queue_nums));
    MQKIT_RETURN_IF_ERROR(qf.get("perm", q.perm));
    MQKIT_RETURN_IF_ERROR(qf.get("topicSynFlag", q.topic_sys_flag));  // spelling before 4.9.0
    MQKIT_RETURN_IF_ERROR(qf.get("topicSysFlag", q.topic_sys_flag));
    MQKIT_RETURN_IF_ERROR(check_queue_nums("QueueData", q.broker_name, q.read_queue_nums, q.write_queue_nums));
    out.push_back(std::move(q));
    return Status::ok();
  }));
  MQKIT_RETURN_IF_ERROR(f.each("brokerDatas", r.broker_datas, [](const Value& item, std::vector<BrokerData>& out) {
    MQKIT_ASSIGN_OR_RETURN(BrokerData b, read_broker_data(item));
    out.push_back(std::move(b));
    return Status::ok();
  }));
  return r;
}

Result<ClusterInfo> decode_cluster_info(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, parse(json, "ClusterInfo"));
  ClusterInfo c;
  Fields f(doc, "ClusterInfo");
  Status error;
  if (const Value* brokers = f.object("brokerAddrTable", error)) {
    for (const auto& m : brokers->GetObject()) {
      MQKIT_ASSIGN_OR_RETURN(BrokerData b, read_broker_data(m.value));
      c.broker_addr_table[m.name.GetString()] = std::move(b);
    }
  }
  if (const Value* clusters = f.object("clusterAddrTable", error)) {
    for (const auto& m : clusters->GetObject()) {
      Fields names(*clusters, "ClusterInfo.clusterAddrTable");
      auto& set = c.cluster_addr_table[m.name.GetString()];
      MQKIT_RETURN_IF_ERROR(names.each(m.name.GetString(), set, [](const Value& item, std::set<std::string>& out) {
        std::string name;
        MQKIT_RETURN_IF_ERROR(read_string_item(item, name, "ClusterInfo.clusterAddrTable"));
        out.insert(std::move(name));
        return Status::ok();
      }));
    }
  }
  MQKIT_RETURN_IF_ERROR(error);
  return c;
}

Result<TopicList> decode_topic_list(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, parse(json, "TopicList"));
  TopicList t;
  Fields f(doc, "TopicList");
  MQKIT_RETURN_IF_ERROR(f.get("brokerAddr", t.broker_addr));
  MQKIT_RETURN_IF_ERROR(f.each("topicList", t.topic_list, [](const Value& item, std::set<std::string>& out) {
    std::string topic;
    MQKIT_RETURN_IF_ERROR(read_string_item(item, topic, "TopicList.topicList"));
    out.insert(std::move(topic));
    return Status::ok();
  }));
  return t;
}

Result<KvTable> decode_kv_table(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, parse(json, "KVTable"));
  KvTable t;
  Status error;
  if (const Value* table = Fields(doc, "KVTable").object("table", error)) {
    for (const auto& m : table->GetObject()) {
      if (!m.value.IsString()) return Status::invalid_argument("KVTable: values must be strings");
      t.table[m.name.GetString()] = m.value.GetString();
    }
  }
  MQKIT_RETURN_IF_ERROR(error);
  return t;
}

Result<RegisterBrokerBody> decode_register_broker_body(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, parse(json, "RegisterBrokerBody"));
  RegisterBrokerBody b;
  Fields f(doc, "RegisterBrokerBody");
  Status error;
  if (const Value* wrapper = f.object("topicConfigSerializeWrapper", error)) {
    MQKIT_ASSIGN_OR_RETURN(b.topic_config_wrapper, read_topic_config_table(*wrapper));
  }
  MQKIT_RETURN_IF_ERROR(error);
  MQKIT_RETURN_IF_ERROR(f.each("filterServerList", b.filter_server_list,
                               [](const Value& item, std::vector<std::string>& out) {
                                 std::string s;
                                 MQKIT_RETURN_IF_ERROR(read_string_item(item, s, "filterServerList"));
                                 out.push_back(std::move(s));
                                 return Status::ok();
                               }));
  return b;
}

Result<HeartbeatData> decode_heartbeat(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, parse(json, "HeartbeatData"));
  HeartbeatData h;
  Fields f(doc, "HeartbeatData");
  MQKIT_RETURN_IF_ERROR(f.get("clientID", h.client_id));
  MQKIT_RETURN_IF_ERROR(f.each("producerDataSet", h.producer_groups, [](const Value& item, std::vector<std::string>& out) {
    if (!item.IsObject()) return Status::invalid_argument("HeartbeatData: ProducerData must be an object");
    std::string group;
    MQKIT_RETURN_IF_ERROR(Fields(item, "ProducerData").get("groupName", group));
    out.push_back(std::move(group));
    return Status::ok();
  }));
  MQKIT_RETURN_IF_ERROR(f.each("consumerDataSet", h.consumer_data_set, [](const Value& item, std::vector<ConsumerData>& out) {
    if (!item.IsObject()) return Status::invalid_argument("HeartbeatData: ConsumerData must be an object");
    ConsumerData c;
    Fields cf(item, "ConsumerData");
    MQKIT_RETURN_IF_ERROR(cf.get("groupName", c.group_name));
    MQKIT_RETURN_IF_ERROR(cf.get("consumeType", c.consume_type));
    MQKIT_RETURN_IF_ERROR(cf.get("messageModel", c.message_model));
    MQKIT_RETURN_IF_ERROR(cf.get("consumeFromWhere", c.consume_from_where));
    MQKIT_RETURN_IF_ERROR(cf.get("unitMode", c.unit_mode));
    MQKIT_RETURN_IF_ERROR(cf.each("subscriptionDataSet", c.subscription_data_set,
                                  [](const Value& s, std::vector<SubscriptionData>& subs) {
                                    MQKIT_ASSIGN_OR_RETURN(SubscriptionData d, read_subscription(s));
                                    subs.push_back(std::move(d));
                                    return Status::ok();
                                  }));
    out.push_back(std::move(c));
    return Status::ok();
  }));
  if (h.client_id.empty()) return Status::invalid_argument("HeartbeatData: clientID is missing");
  return h;
}

Result<CheckClientRequestBody> decode_check_client_request(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, parse(json, "CheckClientRequestBody"));
  CheckClientRequestBody b;
  Fields f(doc, "CheckClientRequestBody");
  MQKIT_RETURN_IF_ERROR(f.get("clientId", b.client_id));
  MQKIT_RETURN_IF_ERROR(f.get("group", b.group));
  if (const auto it = doc.FindMember("subscriptionData"); it != doc.MemberEnd() && !it->value.IsNull()) {
    MQKIT_ASSIGN_OR_RETURN(b.subscription_data, read_subscription(it->value));
  }
  return b;
}

Result<ConsumerIdList> decode_consumer_id_list(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, parse(json, "consumer id list"));
  ConsumerIdList l;
  MQKIT_RETURN_IF_ERROR(Fields(doc, "consumer id list")
                            .each("consumerIdList", l.consumer_id_list, [](const Value& item, std::vector<std::string>& out) {
                              std::string id;
                              MQKIT_RETURN_IF_ERROR(read_string_item(item, id, "consumerIdList"));
                              out.push_back(std::move(id));
                              return Status::ok();
                            }));
  return l;
}

Result<GroupList> decode_group_list(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, parse(json, "GroupList"));
  GroupList l;
  MQKIT_RETURN_IF_ERROR(Fields(doc, "GroupList").each("groupList", l.group_list, [](const Value& item, std::set<std::string>& out) {
    std::string group;
    MQKIT_RETURN_IF_ERROR(read_string_item(item, group, "groupList"));
    out.insert(std::move(group));
    return Status::ok();
  }));
  return l;
}

Result<LockBatchRequest> decode_lock_batch_request(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, parse(json, "LockBatchRequestBody"));
  LockBatchRequest r;
  Fields f(doc, "LockBatchRequestBody");
  MQKIT_RETURN_IF_ERROR(f.get("consumerGroup", r.consumer_group));
  MQKIT_RETURN_IF_ERROR(f.get("clientId", r.client_id));
  MQKIT_RETURN_IF_ERROR(f.get("onlyThisBroker", r.only_this_broker));
  MQKIT_RETURN_IF_ERROR(read_queue_set(f, "mqSet", r.mq_set));
  return r;
}

Result<LockBatchResponse> decode_lock_batch_response(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, parse(json, "LockBatchResponseBody"));
  LockBatchResponse r;
  MQKIT_RETURN_IF_ERROR(read_queue_set(Fields(doc, "LockBatchResponseBody"), "lockOKMQSet", r.lock_ok_mq_set));
  return r;
}

namespace {

Result<ConsumeStats> read_consume_stats(const Value& object) {
  if (!object.IsObject()) return Status::invalid_argument("ConsumeStats must be an object");
  ConsumeStats s;
  Fields f(object, "ConsumeStats");
  MQKIT_RETURN_IF_ERROR(f.get("consumeTps", s.consume_tps));
  MQKIT_RETURN_IF_ERROR(read_queue_map(f, "offsetTable", s.offset_table, [](const Value& v) -> Result<OffsetWrapper> {
    if (!v.IsObject()) return Status::invalid_argument("OffsetWrapper must be an object");
    OffsetWrapper o;
    Fields of(v, "OffsetWrapper");
    MQKIT_RETURN_IF_ERROR(of.get("brokerOffset", o.broker_offset));
    MQKIT_RETURN_IF_ERROR(of.get("consumerOffset", o.consumer_offset));
    MQKIT_RETURN_IF_ERROR(of.get("lastTimestamp", o.last_timestamp));
    return o;
  }));
  return s;
}

}  // namespace

Result<ConsumeStats> decode_consume_stats(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, parse(json, "ConsumeStats"));
  return read_consume_stats(doc);
}

Result<ConsumeStatsList> decode_consume_stats_list(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, parse(json, "ConsumeStatsList"));
  ConsumeStatsList s;
  Fields f(doc, "ConsumeStatsList");
  MQKIT_RETURN_IF_ERROR(f.get("brokerAddr", s.broker_addr));
  MQKIT_RETURN_IF_ERROR(f.get("totalDiff", s.total_diff));
  const Value* list = f.find("consumeStatsList");
  if (!list) return s;
  if (!list->IsArray()) return Status::invalid_argument("ConsumeStatsList.consumeStatsList must be an array");
  for (const auto& groups : list->GetArray()) {
    if (!groups.IsObject()) return Status::invalid_argument("ConsumeStatsList entries must be {group: [ConsumeStats]}");
    auto& out = s.consume_stats_list.emplace_back();
    for (const auto& [group, stats] : groups.GetObject()) {
      if (!stats.IsArray()) return Status::invalid_argument("ConsumeStatsList: group " + std::string(group.GetString()) + " must map to an array");
      auto& per_topic = out[group.GetString()];
      for (const auto& one : stats.GetArray()) {
        MQKIT_ASSIGN_OR_RETURN(ConsumeStats decoded, read_consume_stats(one));
        per_topic.push_back(std::move(decoded));
      }
    }
  }
  return s;
}

Result<TopicStatsTable> decode_topic_stats(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, parse(json, "TopicStatsTable"));
  TopicStatsTable s;
  MQKIT_RETURN_IF_ERROR(read_queue_map(Fields(doc, "TopicStatsTable"), "offsetTable", s.offset_table,
                                       [](const Value& v) -> Result<TopicOffset> {
                                         if (!v.IsObject()) return Status::invalid_argument("TopicOffset must be an object");
                                         TopicOffset o;
                                         Fields of(v, "TopicOffset");
                                         MQKIT_RETURN_IF_ERROR(of.get("minOffset", o.min_offset));
                                         MQKIT_RETURN_IF_ERROR(of.get("maxOffset", o.max_offset));
                                         MQKIT_RETURN_IF_ERROR(of.get("lastUpdateTimestamp", o.last_update_timestamp));
                                         return o;
                                       }));
  return s;
}

Result<ConsumerRunningInfo> decode_consumer_running_info(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, parse(json, "ConsumerRunningInfo"));
  ConsumerRunningInfo info;
  Fields f(doc, "ConsumerRunningInfo");
  MQKIT_RETURN_IF_ERROR(f.get("jstack", info.jstack));
  Status error;
  const auto read_strings = [](const Value* object, std::map<std::string, std::string>& out) {
    if (!object) return;
    for (const auto& m : object->GetObject()) {
      if (m.value.IsString()) out[m.name.GetString()] = m.value.GetString();
    }
  };
  read_strings(f.object("properties", error), info.properties);
  read_strings(f.object("userConsumerInfo", error), info.user_consumer_info);
  MQKIT_RETURN_IF_ERROR(error);
  MQKIT_RETURN_IF_ERROR(f.each("subscriptionSet", info.subscription_set,
                               [](const Value& item, std::vector<SubscriptionData>& out) {
                                 MQKIT_ASSIGN_OR_RETURN(SubscriptionData d, read_subscription(item));
                                 out.push_back(std::move(d));
                                 return Status::ok();
                               }));
  MQKIT_RETURN_IF_ERROR(read_queue_map(f, "mqTable", info.mq_table, [](const Value& v) -> Result<ProcessQueueInfo> {
    if (!v.IsObject()) return Status::invalid_argument("ProcessQueueInfo must be an object");
    ProcessQueueInfo p;
    Fields pf(v, "ProcessQueueInfo");
    MQKIT_RETURN_IF_ERROR(pf.get("commitOffset", p.commit_offset));
    MQKIT_RETURN_IF_ERROR(pf.get("cachedMsgMinOffset", p.cached_msg_min_offset));
    MQKIT_RETURN_IF_ERROR(pf.get("cachedMsgMaxOffset", p.cached_msg_max_offset));
    MQKIT_RETURN_IF_ERROR(pf.get("cachedMsgCount", p.cached_msg_count));
    MQKIT_RETURN_IF_ERROR(pf.get("cachedMsgSizeInMiB", p.cached_msg_size_in_mib));
    MQKIT_RETURN_IF_ERROR(pf.get("transactionMsgMinOffset", p.transaction_msg_min_offset));
    MQKIT_RETURN_IF_ERROR(pf.get("transactionMsgMaxOffset", p.transaction_msg_max_offset));
    MQKIT_RETURN_IF_ERROR(pf.get("transactionMsgCount", p.transaction_msg_count));
    MQKIT_RETURN_IF_ERROR(pf.get("locked", p.locked));
    MQKIT_RETURN_IF_ERROR(pf.get("tryUnlockTimes", p.try_unlock_times));
    MQKIT_RETURN_IF_ERROR(pf.get("lastLockTimestamp", p.last_lock_timestamp));
    MQKIT_RETURN_IF_ERROR(pf.get("droped", p.dropped));
    MQKIT_RETURN_IF_ERROR(pf.get("lastPullTimestamp", p.last_pull_timestamp));
    MQKIT_RETURN_IF_ERROR(pf.get("lastConsumeTimestamp", p.last_consume_timestamp));
    return p;
  }));
  if (const Value* table = f.object("statusTable", error)) {
    for (const auto& m : table->GetObject()) {
      if (!m.value.IsObject()) return Status::invalid_argument("ConsumeStatus must be an object");
      ConsumeStatus st;
      Fields sf(m.value, "ConsumeStatus");
      MQKIT_RETURN_IF_ERROR(sf.get("pullRT", st.pull_rt));
      MQKIT_RETURN_IF_ERROR(sf.get("pullTPS", st.pull_tps));
      MQKIT_RETURN_IF_ERROR(sf.get("consumeRT", st.consume_rt));
      MQKIT_RETURN_IF_ERROR(sf.get("consumeOKTPS", st.consume_ok_tps));
      MQKIT_RETURN_IF_ERROR(sf.get("consumeFailedTPS", st.consume_failed_tps));
      MQKIT_RETURN_IF_ERROR(sf.get("consumeFailedMsgs", st.consume_failed_msgs));
      info.status_table[m.name.GetString()] = st;
    }
  }
  MQKIT_RETURN_IF_ERROR(error);
  return info;
}

Result<ResetOffsetBody> decode_reset_offset_body(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, parse(json, "ResetOffsetBody"));
  ResetOffsetBody b;
  Fields f(doc, "ResetOffsetBody");
  const Value* table = f.find("offsetTable");
  // ResetOffsetBodyForC: an array of queues that carry their offset. (The object-keyed map
  // arrives as an array of [queue, offset] pairs, see quote_bare_keys.)
  if (table && table->IsArray() && !table->Empty() && (*table)[0].IsObject()) {
    for (const auto& item : table->GetArray()) {
      MQKIT_ASSIGN_OR_RETURN(MessageQueue q, read_message_queue(item));  // refuses a non-object
      const Fields entry(item, "ResetOffsetBodyForC");
      if (!entry.find("offset")) return wrong("ResetOffsetBodyForC", "offset", "present in every entry");
      std::int64_t offset = 0;
      MQKIT_RETURN_IF_ERROR(entry.get("offset", offset));
      b.offset_table[q] = offset;
    }
    return b;
  }
  MQKIT_RETURN_IF_ERROR(read_queue_offsets(f, "offsetTable", b.offset_table));
  return b;
}

Result<GetConsumerStatusBody> decode_get_consumer_status_body(std::string_view json) {
  MQKIT_ASSIGN_OR_RETURN(auto doc, parse(json, "GetConsumerStatusBody"));
  GetConsumerStatusBody b;
  Fields f(doc, "GetConsumerStatusBody");
  MQKIT_RETURN_IF_ERROR(read_queue_offsets(f, "messageQueueTable", b.message_queue_table));
  Status error;
  if (const Value* table = f.object("consumerTable", error)) {
    const Fields clients(*table, "consumerTable");
    for (const auto& m : table->GetObject()) {
      const std::string client_id(m.name.GetString(), m.name.GetStringLength());
      MQKIT_RETURN_IF_ERROR(read_queue_offsets(clients, client_id, b.consumer_table[client_id]));
    }
  }
  MQKIT_RETURN_IF_ERROR(error);
  return b;
}

std::string quote_bare_keys(std::string_view json) {
  // fastjson may write object keys without quotes ({0:"a"}) and objects as keys
  // ({{"topic":"T",...}:{...}}). The first gets quotes; the second turns the whole map into an
  // array of [key, value] pairs, which is how mqkit reads maps keyed by MessageQueue.
  std::string out;
  out.reserve(json.size() + 16);
  std::size_t i = 0;
  const auto skip_string = [&](std::size_t start) {
    std::size_t j = start + 1;
    while (j < json.size() && json[j] != '"') j += json[j] == '\\' ? 2 : 1;
    return std::min(j + 1, json.size());
  };
  const auto next_non_space = [&](std::size_t from) {
    while (from < json.size() && std::isspace(static_cast<unsigned char>(json[from]))) ++from;
    return from;
  };
  // Finds the end of the value starting at `from` (balanced braces/brackets, strings skipped).
  const auto value_end = [&](std::size_t from) {
    int depth = 0;
    std::size_t j = from;
    while (j < json.size()) {
      const char c = json[j];
      if (c == '"') {
        j = skip_string(j);
        if (depth == 0) return j;
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') {
        if (depth == 0) return j;
        if (--depth == 0) return j + 1;
      }
      if (depth == 0 && (c == ',' || c == ':')) return j;
      ++j;
    }
    return j;
  };
  // Object keys nest a level or two in real bodies. Deeper ones are copied as they are (the JSON
  // parser then refuses them): unbounded, a body of '{'s would recurse until the stack overflows.
  constexpr int kMaxObjectKeyNesting = 16;
  std::function<void(std::size_t, std::size_t, int)> emit = [&](std::size_t from, std::size_t to, int depth) {
    if (depth > kMaxObjectKeyNesting) {
      if (from < to) out.append(json.substr(from, to - from));
      i = to;
      return;
    }
    i = from;
    while (i < to) {
      const char c = json[i];
      if (c == '"') {
        const std::size_t end = skip_string(i);
        out.append(json.substr(i, end - i));
        i = end;
        continue;
      }
      if (c == '{') {
        const std::size_t k = next_non_space(i + 1);
        if (k < to && json[k] == '{') {
          // Object with object keys → array of pairs.
          out += '[';
          std::size_t pos = k;
          bool first = true;
          while (pos < to && json[pos] != '}') {
            const std::size_t key_end = value_end(pos);
            const std::size_t colon = next_non_space(key_end);
            const std::size_t val_start = next_non_space(colon + 1);
            const std::size_t val_end = value_end(val_start);
            if (!first) out += ',';
            first = false;
            out += '[';
            emit(pos, key_end, depth + 1);
            out += ',';
            emit(val_start, val_end, depth + 1);
            out += ']';
            pos = next_non_space(val_end);
            if (pos < to && json[pos] == ',') pos = next_non_space(pos + 1);
          }
          out += ']';
          i = pos + 1;
          continue;
        }
        out += c;
        ++i;
        continue;
      }
      // A bare key: an identifier or number directly after '{' or ',' inside an object, followed by ':'.
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') {
        std::size_t end = i;
        while (end < to && (std::isalnum(static_cast<unsigned char>(json[end])) || json[end] == '-' ||
                            json[end] == '_' || json[end] == '.')) {
          ++end;
        }
        const std::size_t after = next_non_space(end);
        std::size_t before = out.size();
        while (before > 0 && std::isspace(static_cast<unsigned char>(out[before - 1]))) --before;
        const char prev = before > 0 ? out[before - 1] : '\0';
        if (after < to && json[after] == ':' && (prev == '{' || prev == ',')) {
          out += '"';
          out.append(json.substr(i, end - i));
          out += '"';
        } else {
          out.append(json.substr(i, end - i));
        }
        i = end;
        continue;
      }
      out += c;
      ++i;
    }
  };
  emit(0, json.size(), 0);
  return out;
}

}  // namespace mqkit::protocol
