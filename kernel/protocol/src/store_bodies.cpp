#include "mqkit/protocol/store_bodies.hpp"

#include "body_codec.hpp"
#include "mqkit/protocol/json_writer.hpp"

namespace mqkit::protocol {

namespace {

using detail::Fields;
using detail::Value;
using json::key;
using json::str;
using json::Writer;
using plugin::v1::Result;
using plugin::v1::Status;

void optional_str(Writer& w, std::string_view name, const std::optional<std::string>& value) {
  if (value) key(w, name), str(w, *value);
}

Status read_optional(const Fields& f, std::string_view name, std::optional<std::string>& out) {
  if (!f.find(name)) return Status::ok();
  std::string value;
  MQKIT_RETURN_IF_ERROR(f.get(name, value));
  out = std::move(value);
  return Status::ok();
}

}  // namespace

std::string encode(const QueryConsumeQueueResponse& body) {
  return json::write_json([&](Writer& w) {
    w.StartObject();
    optional_str(w, "filterData", body.filter_data);
    key(w, "maxQueueIndex"), w.Int64(body.max_queue_index);
    key(w, "minQueueIndex"), w.Int64(body.min_queue_index);
    key(w, "queueData"), w.StartArray();
    for (const ConsumeQueueData& unit : body.queue_data) {
      w.StartObject();
      optional_str(w, "bitMap", unit.bit_map);
      key(w, "eval"), w.Bool(unit.eval);
      optional_str(w, "extendDataJson", unit.extend_data_json);
      optional_str(w, "msg", unit.msg);
      key(w, "physicOffset"), w.Int64(unit.physic_offset);
      key(w, "physicSize"), w.Int(unit.physic_size);
      key(w, "tagsCode"), w.Int64(unit.tags_code);
      w.EndObject();
    }
    w.EndArray();
    if (body.subscription_data) key(w, "subscriptionData"), detail::write(w, *body.subscription_data);
    w.EndObject();
  });
}

Result<QueryConsumeQueueResponse> decode_query_consume_queue_response(std::string_view json) {
  constexpr std::string_view kWhat = "QueryConsumeQueueResponseBody";
  MQKIT_ASSIGN_OR_RETURN(auto doc, detail::parse(json, kWhat));
  QueryConsumeQueueResponse body;
  Fields f(doc, kWhat);
  MQKIT_RETURN_IF_ERROR(read_optional(f, "filterData", body.filter_data));
  MQKIT_RETURN_IF_ERROR(f.get("maxQueueIndex", body.max_queue_index));
  MQKIT_RETURN_IF_ERROR(f.get("minQueueIndex", body.min_queue_index));
  if (const Value* subscription = f.find("subscriptionData")) {
    MQKIT_ASSIGN_OR_RETURN(body.subscription_data, detail::read_subscription(*subscription));
  }
  MQKIT_RETURN_IF_ERROR(f.each("queueData", body.queue_data, [](const Value& item, std::vector<ConsumeQueueData>& out) {
    if (!item.IsObject()) return Status::invalid_argument("QueryConsumeQueueResponseBody.queueData: expected objects");
    Fields uf(item, "ConsumeQueueData");
    ConsumeQueueData unit;
    MQKIT_RETURN_IF_ERROR(uf.get("physicOffset", unit.physic_offset));
    MQKIT_RETURN_IF_ERROR(uf.get("physicSize", unit.physic_size));
    MQKIT_RETURN_IF_ERROR(uf.get("tagsCode", unit.tags_code));
    MQKIT_RETURN_IF_ERROR(read_optional(uf, "extendDataJson", unit.extend_data_json));
    MQKIT_RETURN_IF_ERROR(read_optional(uf, "bitMap", unit.bit_map));
    MQKIT_RETURN_IF_ERROR(uf.get("eval", unit.eval));
    MQKIT_RETURN_IF_ERROR(read_optional(uf, "msg", unit.msg));
    out.push_back(std::move(unit));
    return Status::ok();
  }));
  return body;
}

std::string to_string(const ConsumeQueueData& data) {
  const auto quoted_or_null = [](const std::optional<std::string>& value) {
    return value ? "'" + *value + "'" : std::string("'null'");
  };
  return "ConsumeQueueData{physicOffset=" + std::to_string(data.physic_offset) +
         ", physicSize=" + std::to_string(data.physic_size) + ", tagsCode=" + std::to_string(data.tags_code) +
         ", extendDataJson=" + quoted_or_null(data.extend_data_json) + ", bitMap=" + quoted_or_null(data.bit_map) +
         ", eval=" + (data.eval ? "true" : "false") + ", msg=" + quoted_or_null(data.msg) + "}";
}

std::string encode(const HaRuntimeInfo& info) {
  return json::write_json([&](Writer& w) {
    w.StartObject();
    const HaClientRuntimeInfo& client = info.ha_client_runtime_info;
    key(w, "haClientRuntimeInfo"), w.StartObject();
    key(w, "activated"), w.Bool(client.activated);
    key(w, "lastReadTimestamp"), w.Int64(client.last_read_timestamp);
    key(w, "lastWriteTimestamp"), w.Int64(client.last_write_timestamp);
    if (!client.master_addr.empty()) key(w, "masterAddr"), str(w, client.master_addr);
    key(w, "masterFlushOffset"), w.Int64(client.master_flush_offset);
    key(w, "maxOffset"), w.Int64(client.max_offset);
    key(w, "transferredByteInSecond"), w.Int64(client.transferred_byte_in_second);
    w.EndObject();
    key(w, "haConnectionInfo"), w.StartArray();
    for (const HaConnectionRuntimeInfo& c : info.ha_connection_info) {
      w.StartObject();
      key(w, "addr"), str(w, c.addr);
      key(w, "diff"), w.Int64(c.diff);
      key(w, "inSync"), w.Bool(c.in_sync);
      key(w, "slaveAckOffset"), w.Int64(c.slave_ack_offset);
      key(w, "transferFromWhere"), w.Int64(c.transfer_from_where);
      key(w, "transferredByteInSecond"), w.Int64(c.transferred_byte_in_second);
      w.EndObject();
    }
    w.EndArray();
    key(w, "inSyncSlaveNums"), w.Int(info.in_sync_slave_nums);
    key(w, "master"), w.Bool(info.master);
    key(w, "masterCommitLogMaxOffset"), w.Int64(info.master_commit_log_max_offset);
    w.EndObject();
  });
}

Result<HaRuntimeInfo> decode_ha_runtime_info(std::string_view json) {
  constexpr std::string_view kWhat = "HARuntimeInfo";
  MQKIT_ASSIGN_OR_RETURN(auto doc, detail::parse(json, kWhat));
  HaRuntimeInfo info;
  Fields f(doc, kWhat);
  MQKIT_RETURN_IF_ERROR(f.get("master", info.master));
  MQKIT_RETURN_IF_ERROR(f.get("masterCommitLogMaxOffset", info.master_commit_log_max_offset));
  MQKIT_RETURN_IF_ERROR(f.get("inSyncSlaveNums", info.in_sync_slave_nums));
  Status error;
  if (const Value* client = f.object("haClientRuntimeInfo", error)) {
    Fields cf(*client, "HAClientRuntimeInfo");
    HaClientRuntimeInfo& c = info.ha_client_runtime_info;
    MQKIT_RETURN_IF_ERROR(cf.get("masterAddr", c.master_addr));
    MQKIT_RETURN_IF_ERROR(cf.get("transferredByteInSecond", c.transferred_byte_in_second));
    MQKIT_RETURN_IF_ERROR(cf.get("maxOffset", c.max_offset));
    MQKIT_RETURN_IF_ERROR(cf.get("lastReadTimestamp", c.last_read_timestamp));
    MQKIT_RETURN_IF_ERROR(cf.get("lastWriteTimestamp", c.last_write_timestamp));
    MQKIT_RETURN_IF_ERROR(cf.get("masterFlushOffset", c.master_flush_offset));
    MQKIT_RETURN_IF_ERROR(cf.get("activated", c.activated));
  }
  MQKIT_RETURN_IF_ERROR(error);
  MQKIT_RETURN_IF_ERROR(
      f.each("haConnectionInfo", info.ha_connection_info, [](const Value& item, std::vector<HaConnectionRuntimeInfo>& out) {
        if (!item.IsObject()) return Status::invalid_argument("HARuntimeInfo.haConnectionInfo: expected objects");
        Fields cf(item, "HAConnectionRuntimeInfo");
        HaConnectionRuntimeInfo c;
        MQKIT_RETURN_IF_ERROR(cf.get("addr", c.addr));
        MQKIT_RETURN_IF_ERROR(cf.get("slaveAckOffset", c.slave_ack_offset));
        MQKIT_RETURN_IF_ERROR(cf.get("diff", c.diff));
        MQKIT_RETURN_IF_ERROR(cf.get("inSync", c.in_sync));
        MQKIT_RETURN_IF_ERROR(cf.get("transferredByteInSecond", c.transferred_byte_in_second));
        MQKIT_RETURN_IF_ERROR(cf.get("transferFromWhere", c.transfer_from_where));
        out.push_back(std::move(c));
        return Status::ok();
      }));
  return info;
}

}  // namespace mqkit::protocol
