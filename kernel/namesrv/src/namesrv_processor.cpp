#include "mqkit/namesrv/namesrv_processor.hpp"

#include <zlib.h>

#include "mqkit/kernel/logging.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/header_fields.hpp"
#include "mqkit/protocol/java_properties.hpp"

namespace mqkit::namesrv {

namespace code = protocol::request_code;
namespace rc = protocol::response_code;
using plugin::v1::Result;
using plugin::v1::Status;

namespace {

constexpr const char* kOrderTopicNamespace = "ORDER_TOPIC_CONFIG";

using protocol::body_text;
using protocol::set_body;

RemotingCommand error(const RemotingCommand& req, std::int32_t code, std::string remark) {
  return RemotingCommand::response_to(req, code, std::move(remark));
}

// Required string header fields, in order; the first one missing fails the request.
Result<std::vector<std::string>> required(const RemotingCommand& req, std::initializer_list<std::string_view> names) {
  std::vector<std::string> out;
  for (auto name : names) {
    MQKIT_ASSIGN_OR_RETURN(std::string value, protocol::require(req.ext_fields, name));
    out.push_back(std::move(value));
  }
  return out;
}

protocol::JsonStyle route_style(const RemotingCommand& req) {
  const bool standard = req.version >= protocol::version::kV4_9_4 || req.ext_fields.get_bool("acceptStandardJsonOnly");
  return standard ? protocol::JsonStyle::kStandard : protocol::JsonStyle::kLegacy;
}

}  // namespace

NameServerProcessor::NameServerProcessor(RouteInfoManager& routes, KvConfigManager& kv,
                                         std::shared_ptr<NamesrvSettings> settings, Clock clock)
    : routes_(routes), kv_(kv), settings_(std::move(settings)), clock_(std::move(clock)) {}

RemotingCommand NameServerProcessor::handle(const RemotingCommand& req, std::uint64_t channel_id) {
  switch (req.code) {
    case code::kRegisterBroker: return register_broker(req, channel_id);
    case code::kUnregisterBroker: return unregister_broker(req);
    case code::kGetRouteInfoByTopic: return route_by_topic(req);
    case code::kQueryDataVersion: return query_data_version(req);
    case code::kGetBrokerClusterInfo: {
      auto resp = RemotingCommand::response_to(req, rc::kSuccess);
      set_body(resp, protocol::encode(routes_.cluster_info(), route_style(req)));
      return resp;
    }
    case code::kGetAllTopicListFromNameServer: {
      auto resp = RemotingCommand::response_to(req, rc::kSuccess);
      set_body(resp, protocol::encode(protocol::TopicList{routes_.topics(), ""}));
      return resp;
    }
    case code::kGetTopicsByCluster: {
      auto fields = required(req, {"cluster"});
      if (!fields) return error(req, rc::kSystemError, fields.status().message());
      auto resp = RemotingCommand::response_to(req, rc::kSuccess);
      set_body(resp, protocol::encode(protocol::TopicList{routes_.topics_of_cluster((*fields)[0]), ""}));
      return resp;
    }
    case code::kDeleteTopicInNamesrv: {
      auto fields = required(req, {"topic"});
      if (!fields) return error(req, rc::kSystemError, fields.status().message());
      routes_.delete_topic((*fields)[0]);
      return RemotingCommand::response_to(req, rc::kSuccess);
    }
    case code::kWipeWritePermOfBroker:
    case code::kAddWritePermOfBroker: {
      auto fields = required(req, {"brokerName"});
      if (!fields) return error(req, rc::kSystemError, fields.status().message());
      const bool add = req.code == code::kAddWritePermOfBroker;
      const int changed = routes_.set_write_perm_of_broker((*fields)[0], add);
      auto resp = RemotingCommand::response_to(req, rc::kSuccess);
      resp.ext_fields.set(add ? "addTopicCount" : "wipeTopicCount", std::to_string(changed));
      return resp;
    }
    case code::kPutKvConfig:
    case code::kGetKvConfig:
    case code::kDeleteKvConfig:
    case code::kGetKvListByNamespace:
      return kv_request(req);
    case code::kGetNamesrvConfig: {
      auto resp = RemotingCommand::response_to(req, rc::kSuccess);
      set_body(resp, protocol::encode_java_properties(settings_->properties()));
      return resp;
    }
    case code::kUpdateNamesrvConfig:
      return update_config(req, channel_id);
    default:
      return error(req, rc::kRequestCodeNotSupported, " request type " + std::to_string(req.code) + " not supported");
  }
}

RemotingCommand NameServerProcessor::register_broker(const RemotingCommand& req, std::uint64_t channel_id) {
  auto fields = required(req, {"brokerName", "brokerAddr", "clusterName", "haServerAddr", "brokerId"});
  if (!fields) return error(req, rc::kSystemError, fields.status().message());
  auto broker_id = req.ext_fields.get_int("brokerId");
  if (!broker_id) return error(req, rc::kSystemError, broker_id.status().message());
  if (auto crc = req.ext_fields.get_int("bodyCrc32"); crc.is_ok() && *crc != 0) {
    const auto actual = static_cast<std::int64_t>(crc32(0L, req.body.data(), static_cast<uInt>(req.body.size())) & 0x7FFFFFFF);
    if (actual != *crc) {
      return error(req, rc::kSystemError, "crc32 not match: header says " + std::to_string(*crc) + ", body has " +
                                              std::to_string(actual));
    }
  }
  if (req.ext_fields.get_bool("compressed")) {
    return error(req, rc::kSystemError, "compressed broker registration is not supported; set compressedRegister=false");
  }
  BrokerRegistration r;
  r.broker_name = (*fields)[0];
  r.broker_addr = (*fields)[1];
  r.cluster_name = (*fields)[2];
  r.ha_server_addr = (*fields)[3];
  r.broker_id = *broker_id;
  r.channel_id = channel_id;
  r.full_topic_table = req.ext_fields.get_bool(protocol::kFullTopicTableField);
  if (!req.body.empty()) {
    auto body = protocol::decode_register_broker_body(body_text(req));
    if (!body) return error(req, rc::kSystemError, body.status().message());
    r.topics = std::move(body->topic_config_wrapper);
    r.filter_servers = std::move(body->filter_server_list);
  }
  const RegistrationResult result = routes_.register_broker(r, clock_());
  auto resp = RemotingCommand::response_to(req, rc::kSuccess);
  resp.ext_fields.set("haServerAddr", result.ha_server_addr);
  resp.ext_fields.set("masterAddr", result.master_addr);
  set_body(resp, protocol::encode(protocol::KvTable{kv_.list(kOrderTopicNamespace)}));
  return resp;
}

RemotingCommand NameServerProcessor::unregister_broker(const RemotingCommand& req) {
  auto fields = required(req, {"brokerName", "brokerAddr", "clusterName", "brokerId"});
  if (!fields) return error(req, rc::kSystemError, fields.status().message());
  auto broker_id = req.ext_fields.get_int("brokerId");
  if (!broker_id) return error(req, rc::kSystemError, broker_id.status().message());
  routes_.unregister_broker((*fields)[2], (*fields)[1], (*fields)[0], *broker_id);
  return RemotingCommand::response_to(req, rc::kSuccess);
}

RemotingCommand NameServerProcessor::update_config(const RemotingCommand& req, std::uint64_t channel_id) {
  auto properties = protocol::decode_java_properties(body_text(req));
  if (!properties) return error(req, rc::kSystemError, "string2Properties error: " + properties.status().message());
  if (auto updated = settings_->update(*properties); !updated) {
    const bool restart = updated.code() == plugin::v1::StatusCode::kPermissionDenied;
    return error(req, restart ? rc::kNoPermission : rc::kInvalidParameter, updated.message());
  }
  std::string changes;
  for (const auto& [key, value] : *properties) changes += (changes.empty() ? "" : ", ") + key + "=" + value;
  kernel::logger("namesrv")->info("name server config updated on channel {}: {}", channel_id, changes);
  return RemotingCommand::response_to(req, rc::kSuccess);
}

RemotingCommand NameServerProcessor::route_by_topic(const RemotingCommand& req) {
  auto fields = required(req, {"topic"});
  if (!fields) return error(req, rc::kSystemError, fields.status().message());
  const std::string& topic = (*fields)[0];
  auto route = routes_.route(topic);
  if (!route) {
    return error(req, rc::kTopicNotExist, "No topic route info in name server for the topic: " + topic);
  }
  if (settings_->order_message_enable()) {
    route->order_topic_conf = kv_.get(kOrderTopicNamespace, topic).value_or("");
  }
  auto resp = RemotingCommand::response_to(req, rc::kSuccess);
  set_body(resp, protocol::encode(*route, route_style(req)));
  return resp;
}

RemotingCommand NameServerProcessor::query_data_version(const RemotingCommand& req) {
  auto fields = required(req, {"brokerName", "brokerAddr", "clusterName", "brokerId"});
  if (!fields) return error(req, rc::kSystemError, fields.status().message());
  auto version = protocol::decode_data_version(body_text(req));
  if (!version) return error(req, rc::kSystemError, version.status().message());
  const std::string& addr = (*fields)[1];
  const auto current = routes_.data_version(addr);
  const bool changed = routes_.data_version_changed(addr, *version, clock_());
  auto resp = RemotingCommand::response_to(req, rc::kSuccess);
  resp.ext_fields.set("changed", changed);
  if (current) set_body(resp, protocol::encode(*current));
  return resp;
}

RemotingCommand NameServerProcessor::kv_request(const RemotingCommand& req) {
  const bool list = req.code == code::kGetKvListByNamespace;
  auto fields = list ? required(req, {"namespace"}) : required(req, {"namespace", "key"});
  if (!fields) return error(req, rc::kSystemError, fields.status().message());
  const std::string& ns = (*fields)[0];
  if (list) {
    auto table = kv_.list(ns);
    if (table.empty()) return error(req, rc::kQueryNotFound, "No config item, Namespace: " + ns);
    auto resp = RemotingCommand::response_to(req, rc::kSuccess);
    set_body(resp, protocol::encode(protocol::KvTable{std::move(table)}));
    return resp;
  }
  const std::string& key = (*fields)[1];
  if (req.code == code::kGetKvConfig) {
    auto value = kv_.get(ns, key);
    if (!value) return error(req, rc::kQueryNotFound, "No config item, Namespace: " + ns + " Key: " + key);
    auto resp = RemotingCommand::response_to(req, rc::kSuccess);
    resp.ext_fields.set("value", *value);
    return resp;
  }
  Status s;
  if (req.code == code::kPutKvConfig) {
    auto value = req.ext_fields.get("value");
    if (!value) return error(req, rc::kSystemError, "the custom field <value> is null");
    s = kv_.put(ns, key, std::string(*value));
  } else {
    s = kv_.remove(ns, key);
  }
  if (!s) return error(req, rc::kSystemError, s.message());
  return RemotingCommand::response_to(req, rc::kSuccess);
}

void NameServerProcessor::on_request(const std::shared_ptr<plugin::v1::Channel>& channel,
                                     RemotingCommand request) noexcept {
  const metrics::RpcTimer timer(rpc_);
  try {
    RemotingCommand response = handle(request, channel->id());
    const std::int32_t code = response.code;
    if (request.is_oneway()) return timer.answered(request.code, code, false, metrics::RpcResult::kOneway);
    Status s = channel->send(std::move(response));
    timer.answered(request.code, code, false, s ? metrics::RpcResult::kSuccess : metrics::RpcResult::kWriteChannelFailed);
    if (!s) {
      kernel::logger("namesrv")->warn("cannot answer {} from {}: {}", request.code, channel->remote_address(),
                                      s.to_string());
    }
  } catch (const std::exception& e) {
    kernel::logger("namesrv")->error("request {} from {} failed: {}", request.code, channel->remote_address(), e.what());
    if (!request.is_oneway()) (void)channel->send(error(request, rc::kSystemError, e.what()));
  }
}

void NameServerProcessor::on_channel_closed(const std::shared_ptr<plugin::v1::Channel>& channel) noexcept {
  try {
    for (const auto& addr : routes_.on_channel_closed(channel->id())) {
      kernel::logger("namesrv")->info("broker {} removed: its connection closed", addr);
    }
  } catch (...) {
    // The broker will expire on the next scan instead.
  }
}

}  // namespace mqkit::namesrv
