#include "mqkit/client/client_api.hpp"

#include <charconv>
#include <future>
#include <map>
#include <sstream>

#include "mqkit/client/response_status.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/broker_stats_data.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/header_fields.hpp"
#include "mqkit/protocol/java_properties.hpp"
#include "mqkit/protocol/message_trace.hpp"
#include "mqkit/protocol/pop_receipt.hpp"
#include "mqkit/protocol/request_reply.hpp"
#include "mqkit/protocol/topic_attributes.hpp"
#include "mqkit/protocol/transaction.hpp"
#include "mqkit/kernel/wall_clock.hpp"

namespace mqkit::client {

namespace rq = protocol::request_code;
namespace rc = protocol::response_code;
namespace v1 = plugin::v1;
using std::chrono::milliseconds;

namespace {

// A sync call waits this much longer than its timeout for the transport's callback, which the
// transport promises within the timeout: the margin only guards against a transport bug.
constexpr milliseconds kCallbackGrace{2000};

// ExtFields::set has string, int64 and bool overloads; a string literal or an int32 would pick
// the wrong one, so every header field goes through these.
void put(v1::ExtFields& fields, const char* key, std::string_view value) {
  fields.set(std::string(key), std::string(value));
}
void put(v1::ExtFields& fields, const char* key, std::int64_t value) {
  fields.set(std::string(key), std::to_string(value));
}
void put_bool(v1::ExtFields& fields, const char* key, bool value) { put(fields, key, value ? "true" : "false"); }


RemotingCommand queue_request(std::int32_t code, const MessageQueue& queue) {
  auto request = RemotingCommand::request(code);
  put(request.ext_fields, "topic", queue.topic);
  put(request.ext_fields, "queueId", static_cast<std::int64_t>(queue.queue_id));
  return request;
}

RemotingCommand json_request(std::int32_t code, std::string_view body) {
  auto request = RemotingCommand::request(code);
  protocol::set_body(request, body);
  return request;
}

Result<std::int64_t> required_int(const RemotingCommand& response, std::string_view field, std::string_view address) {
  auto value = response.ext_fields.get_int(field);
  if (!value) {
    return Status::corruption("response from " + std::string(address) + " lacks a valid '" + std::string(field) +
                              "': " + value.status().message());
  }
  return value;
}

// --- SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE --------------------------------------------------

// SEND_BATCH_MESSAGE, SEND_REPLY_MESSAGE_V2 for a reply (MSG_TYPE=reply), else SEND_MESSAGE_V2;
// all with the one-letter header (RocketMQ's sendSmartMsg).
std::int32_t send_code_of(const SendMessageRequest& r) {
  if (r.batch) return rq::kSendBatchMessage;
  return protocol::reply::is_reply(r.properties) ? rq::kSendReplyMessageV2 : rq::kSendMessageV2;
}

// Takes the request by value: its strings move into the header.
RemotingCommand send_command(SendMessageRequest r) {
  auto command = RemotingCommand::request(send_code_of(r));
  auto& f = command.ext_fields;
  f.reserve(13);
  f.set("a", std::move(r.producer_group));
  f.set("b", std::move(r.topic));
  f.set("c", std::move(r.default_topic));
  put(f, "d", static_cast<std::int64_t>(r.default_topic_queue_nums));
  put(f, "e", static_cast<std::int64_t>(r.queue_id));
  put(f, "f", static_cast<std::int64_t>(r.sys_flag));
  put(f, "g", r.born_timestamp != 0 ? r.born_timestamp : kernel::wall_clock_ms());
  put(f, "h", static_cast<std::int64_t>(r.flag));
  f.set("i", std::move(r.properties));
  put(f, "j", static_cast<std::int64_t>(r.reconsume_times));
  put_bool(f, "k", r.unit_mode);
  if (r.max_reconsume_times) put(f, "l", static_cast<std::int64_t>(*r.max_reconsume_times));
  put_bool(f, "m", r.batch);
  if (r.body && !r.body->empty()) {
    // Sent straight from the shared body: a retry resends the same bytes without a copy.
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(r.body->data());
    command.body_slices.push_back(v1::StoredSlice{{bytes, r.body->size()}, std::move(r.body)});
  }
  return command;
}

// What SendResult.msg_id reports: the UNIQ_KEY, or each batch member's, comma-joined.
std::string unique_ids_of(const SendMessageRequest& r) {
  if (!r.batch) return std::string(v1::find_property(r.properties, v1::property::kUniqueKey).value_or(""));
  if (!r.body) return {};
  auto items = v1::decode_batch({reinterpret_cast<const std::uint8_t*>(r.body->data()), r.body->size()});
  if (!items) return {};
  std::string ids;
  for (const auto& item : *items) {
    if (!ids.empty()) ids += ',';
    ids += v1::find_property(item.properties, v1::property::kUniqueKey).value_or("");
  }
  return ids;
}

// What a send's answer is read against: kept by the async callback instead of the whole
// request, whose properties and body it no longer needs.
struct SentTo {
  std::string address;
  std::string broker_name;
  std::string topic;
  std::string msg_id;
};

SentTo sent_to(std::string_view address, std::string_view broker_name, const SendMessageRequest& request) {
  return {std::string(address), std::string(broker_name), request.topic, unique_ids_of(request)};
}

Result<SendResult> send_result_of(const RemotingCommand& response, SentTo sent) {
  const auto status = send_status_of_response(response.code);
  if (!status) return response_error(response, sent.address);
  SendResult result;
  result.status = *status;
  result.msg_id = std::move(sent.msg_id);
  result.offset_msg_id = std::string(response.ext_fields.get("msgId").value_or(""));
  MQKIT_ASSIGN_OR_RETURN(const std::int64_t queue_id, required_int(response, "queueId", sent.address));
  MQKIT_ASSIGN_OR_RETURN(result.queue_offset, required_int(response, "queueOffset", sent.address));
  result.message_queue =
      MessageQueue{std::move(sent.topic), std::move(sent.broker_name), static_cast<std::int32_t>(queue_id)};
  result.transaction_id = std::string(response.ext_fields.get("transactionId").value_or(""));
  result.recall_handle = std::string(response.ext_fields.get("recallHandle").value_or(""));
  result.region_id =
      std::string(response.ext_fields.get(protocol::property::kMsgRegion).value_or(protocol::kDefaultRegionId));
  result.trace_on = response.ext_fields.get(protocol::property::kTraceSwitch).value_or("true") != "false";
  return result;
}

// --- PULL_MESSAGE --------------------------------------------------------------------------

RemotingCommand pull_command(const PullMessageRequest& r) {
  // As RocketMQ's client does, so a broker can serve lite pulls from their own queue.
  auto command = RemotingCommand::request((r.sys_flag & pull_sys_flag::kLitePull) != 0 ? rq::kLitePullMessage
                                                                                       : rq::kPullMessage);
  auto& f = command.ext_fields;
  put(f, "consumerGroup", r.consumer_group);
  put(f, "topic", r.topic);
  put(f, "queueId", static_cast<std::int64_t>(r.queue_id));
  put(f, "queueOffset", r.queue_offset);
  put(f, "maxMsgNums", static_cast<std::int64_t>(r.max_msg_nums));
  put(f, "sysFlag", static_cast<std::int64_t>(r.sys_flag));
  put(f, "commitOffset", r.commit_offset);
  put(f, "suspendTimeoutMillis", r.suspend_timeout_ms);
  put(f, "subscription", r.subscription);
  put(f, "subVersion", r.sub_version);
  put(f, "expressionType", r.expression_type);
  return command;
}

Result<PullResult> pull_result_of(const RemotingCommand& response, std::string_view address) {
  const auto status = pull_status_of_response(response.code);
  if (!status) return response_error(response, address);
  PullResult result;
  result.status = *status;
  MQKIT_ASSIGN_OR_RETURN(result.next_begin_offset, required_int(response, "nextBeginOffset", address));
  result.min_offset = response.ext_fields.get_int("minOffset").value_or(0);
  result.max_offset = response.ext_fields.get_int("maxOffset").value_or(0);
  result.suggest_which_broker_id = response.ext_fields.get_int("suggestWhichBrokerId").value_or(0);
  if (result.status == PullStatus::kFound) {
    auto messages = decode_messages(response.body);
    if (!messages) return messages.status().with_context("pull response from " + std::string(address));
    result.messages = std::move(messages).value();
  }
  return result;
}

// The requests RocketMQ's client sends over the VIP channel: sends, send-backs, transaction ends
// and offset requests; never pulls (a RocketMQ broker's fast port does not serve them) nor
// heartbeats.
bool goes_over_vip_channel(std::int32_t request_code) {
  switch (request_code) {
    case rq::kSendMessage: case rq::kSendMessageV2: case rq::kSendBatchMessage: case rq::kConsumerSendMsgBack:
    case rq::kEndTransaction: case rq::kQueryConsumerOffset: case rq::kUpdateConsumerOffset:
    case rq::kSearchOffsetByTimestamp: case rq::kGetMaxOffset: case rq::kGetMinOffset:
    case rq::kGetEarliestMsgStoreTime: case rq::kViewMessageById:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string vip_channel_address(std::string_view address) {
  const auto colon = address.rfind(':');
  if (colon == std::string_view::npos) return std::string(address);
  int port = 0;
  const std::string_view digits = address.substr(colon + 1);
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
  if (error != std::errc{} || end != digits.data() + digits.size() || port <= 2) return std::string(address);
  return std::string(address.substr(0, colon + 1)) + std::to_string(port - 2);
}

ClientApi::ClientApi(std::shared_ptr<v1::Transport> transport, std::shared_ptr<v1::RequestHandler> handler,
                     std::vector<std::string> namesrv_addresses, milliseconds default_timeout,
                     v1::SerializeType serialize_type, protocol::acl::Credentials credentials,
                     bool vip_channel_enabled)
    : transport_(std::move(transport)),
      handler_(std::move(handler)),
      default_timeout_(default_timeout),
      serialize_type_(serialize_type),
      credentials_(std::move(credentials)),
      vip_channel_enabled_(vip_channel_enabled),
      namesrv_addresses_(std::move(namesrv_addresses)) {}

Status ClientApi::prepare(RemotingCommand& request) const {
  // RocketMQ's binary header holds the code in 16 bits: RocketMQ 5's larger codes (pop, 2000xx)
  // travel with JSON headers, as its Java client sends them.
  const bool fits_binary = request.code >= INT16_MIN && request.code <= INT16_MAX;
  request.serialize_type = fits_binary ? serialize_type_ : plugin::v1::SerializeType::kJson;
  if (credentials_.empty()) return Status::ok();
  return protocol::acl::sign(request, credentials_);
}

std::vector<std::string> ClientApi::namesrv_addresses() const {
  std::lock_guard lock(namesrv_mutex_);
  return namesrv_addresses_;
}

void ClientApi::set_namesrv_addresses(std::vector<std::string> addresses) {
  std::lock_guard lock(namesrv_mutex_);
  namesrv_addresses_ = std::move(addresses);
  namesrv_index_ = 0;
}

// ---- Raw requests --------------------------------------------------------------------------

std::string_view ClientApi::destination(std::string_view address, std::int32_t request_code, std::string& vip) const {
  if (!vip_channel_enabled_ || !goes_over_vip_channel(request_code)) return address;
  vip = vip_channel_address(address);
  return vip;
}

Result<RemotingCommand> ClientApi::invoke(std::string_view address, RemotingCommand request, milliseconds timeout) {
  timeout = effective(timeout);
  MQKIT_RETURN_IF_ERROR(prepare(request));
  std::string vip;
  auto channel = transport_->connect(destination(address, request.code, vip), handler_);
  if (!channel) return channel.status();
  auto promise = std::make_shared<std::promise<Result<RemotingCommand>>>();
  auto future = promise->get_future();
  (*channel)->invoke(std::move(request), timeout,
                     [promise](Result<RemotingCommand> response) { promise->set_value(std::move(response)); });
  if (future.wait_for(timeout + kCallbackGrace) != std::future_status::ready) {
    return Status::timeout("no answer from " + std::string(address) + " within " + std::to_string(timeout.count()) +
                           "ms (the transport did not call back)");
  }
  return future.get();
}

void ClientApi::invoke_async(std::string_view address, RemotingCommand request, milliseconds timeout,
                             CommandCallback done) {
  if (Status prepared = prepare(request); !prepared) return done(prepared);
  std::string vip;
  auto channel = transport_->connect(destination(address, request.code, vip), handler_);
  if (!channel) return done(channel.status());
  (*channel)->invoke(std::move(request), effective(timeout), std::move(done));
}

Status ClientApi::invoke_oneway(std::string_view address, RemotingCommand request) {
  request.flag |= RemotingCommand::kOnewayFlag;
  request.opaque = oneway_opaque_.fetch_add(1, std::memory_order_relaxed);
  MQKIT_RETURN_IF_ERROR(prepare(request));
  std::string vip;
  auto channel = transport_->connect(destination(address, request.code, vip), handler_);
  if (!channel) return channel.status();
  return (*channel)->send(std::move(request));
}

Result<RemotingCommand> ClientApi::invoke_namesrv(RemotingCommand request, milliseconds timeout) {
  std::vector<std::string> addresses;
  std::size_t start = 0;
  {
    std::lock_guard lock(namesrv_mutex_);
    addresses = namesrv_addresses_;
    start = namesrv_index_;
  }
  if (addresses.empty()) return Status::unavailable("no name server address configured");
  const auto deadline = std::chrono::steady_clock::now() + effective(timeout);
  Status last = Status::unavailable("no name server answered");
  for (std::size_t i = 0; i < addresses.size(); ++i) {
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    const std::size_t index = (start + i) % addresses.size();
    auto response = invoke(addresses[index], request, left);
    if (response) {
      std::lock_guard lock(namesrv_mutex_);
      if (namesrv_addresses_ == addresses) namesrv_index_ = index;
      return response;
    }
    last = response.status();
  }
  return last;
}

Result<RemotingCommand> ClientApi::call(std::string_view address, RemotingCommand request, milliseconds timeout,
                                        std::int32_t accepted) {
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, invoke(address, std::move(request), timeout));
  if (response.code != accepted) return response_error(response, address);
  return response;
}

Result<std::int64_t> ClientApi::call_for_int(std::string_view address, RemotingCommand request, milliseconds timeout,
                                             std::string_view field) {
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, call(address, std::move(request), timeout));
  return required_int(response, field, address);
}

Result<std::string> ClientApi::call_for_remark(std::string_view address, std::int32_t code, milliseconds timeout) {
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, call(address, RemotingCommand::request(code), timeout));
  return response.remark.value_or(std::string());
}

Result<RemotingCommand> ClientApi::call_namesrv(RemotingCommand request, milliseconds timeout) {
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, invoke_namesrv(std::move(request), timeout));
  if (response.code != rc::kSuccess) return response_error(response, "name server");
  return response;
}

// ---- Name server ---------------------------------------------------------------------------

Result<protocol::TopicRouteData> ClientApi::get_topic_route(std::string_view topic, milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kGetRouteInfoByTopic);
  put(request.ext_fields, "topic", topic);
  put_bool(request.ext_fields, "acceptStandardJsonOnly", true);
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, call_namesrv(std::move(request), timeout));
  return protocol::decode_topic_route(protocol::body_text(response));
}

Result<protocol::ClusterInfo> ClientApi::get_cluster_info(milliseconds timeout) {
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response,
                         call_namesrv(RemotingCommand::request(rq::kGetBrokerClusterInfo), timeout));
  return protocol::decode_cluster_info(protocol::body_text(response));
}

Result<protocol::TopicList> ClientApi::get_all_topic_list(milliseconds timeout) {
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response,
                         call_namesrv(RemotingCommand::request(rq::kGetAllTopicListFromNameServer), timeout));
  return protocol::decode_topic_list(protocol::body_text(response));
}

Result<protocol::TopicList> ClientApi::get_topics_by_cluster(std::string_view cluster, milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kGetTopicsByCluster);
  put(request.ext_fields, "cluster", cluster);
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, call_namesrv(std::move(request), timeout));
  return protocol::decode_topic_list(protocol::body_text(response));
}

Result<std::int64_t> ClientApi::set_write_perm_of_broker(std::string_view namesrv_address, std::string_view broker_name,
                                                         bool writable, milliseconds timeout) {
  auto request = RemotingCommand::request(writable ? rq::kAddWritePermOfBroker : rq::kWipeWritePermOfBroker);
  put(request.ext_fields, "brokerName", broker_name);
  return call_for_int(namesrv_address, std::move(request), timeout, writable ? "addTopicCount" : "wipeTopicCount");
}

Status ClientApi::call_every_namesrv(const RemotingCommand& request, milliseconds timeout) {
  Status first;
  for (const auto& address : namesrv_addresses()) {
    auto response = call(address, request, timeout);
    if (!response && first.is_ok()) first = response.status();
  }
  return first;
}

Status ClientApi::delete_topic_in_namesrv(std::string_view topic, milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kDeleteTopicInNamesrv);
  put(request.ext_fields, "topic", topic);
  return call_every_namesrv(request, timeout);
}

Status ClientApi::put_kv_config(std::string_view ns, std::string_view key, std::string_view value,
                                milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kPutKvConfig);
  put(request.ext_fields, "namespace", ns);
  put(request.ext_fields, "key", key);
  put(request.ext_fields, "value", value);
  return call_every_namesrv(request, timeout);
}

Result<std::string> ClientApi::get_kv_config(std::string_view ns, std::string_view key, milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kGetKvConfig);
  put(request.ext_fields, "namespace", ns);
  put(request.ext_fields, "key", key);
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, call_namesrv(std::move(request), timeout));
  return std::string(response.ext_fields.get("value").value_or(""));
}

Status ClientApi::delete_kv_config(std::string_view ns, std::string_view key, milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kDeleteKvConfig);
  put(request.ext_fields, "namespace", ns);
  put(request.ext_fields, "key", key);
  return call_every_namesrv(request, timeout);
}

Result<protocol::KvTable> ClientApi::get_kv_list_by_namespace(std::string_view ns, milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kGetKvListByNamespace);
  put(request.ext_fields, "namespace", ns);
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, call_namesrv(std::move(request), timeout));
  return protocol::decode_kv_table(protocol::body_text(response));
}

// ---- Producing -----------------------------------------------------------------------------

Result<SendResult> ClientApi::send_message(std::string_view address, std::string_view broker_name,
                                           const SendMessageRequest& request, milliseconds timeout) {
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, invoke(address, send_command(request), timeout));
  return send_result_of(response, sent_to(address, broker_name, request));
}

void ClientApi::send_message_async(std::string_view address, std::string_view broker_name,
                                   SendMessageRequest request, milliseconds timeout, SendCallback done) {
  SentTo sent = sent_to(address, broker_name, request);
  invoke_async(address, send_command(std::move(request)), timeout,
               [sent = std::move(sent), done = std::move(done)](
                   Result<RemotingCommand> response) mutable {
                 if (!response) return done(response.status());
                 done(send_result_of(*response, std::move(sent)));
               });
}

Status ClientApi::send_message_oneway(std::string_view address, const SendMessageRequest& request) {
  return invoke_oneway(address, send_command(request));
}

Status ClientApi::end_transaction_oneway(std::string_view address,
                                         const protocol::transaction::EndTransactionHeader& header,
                                         std::string_view remark) {
  auto request = RemotingCommand::request(rq::kEndTransaction);
  protocol::transaction::write(header, request.ext_fields);
  if (!remark.empty()) request.remark = std::string(remark);
  return invoke_oneway(address, std::move(request));
}

// ---- Consuming -----------------------------------------------------------------------------

Result<PullResult> ClientApi::pull_message(std::string_view address, const PullMessageRequest& request,
                                           milliseconds timeout) {
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, invoke(address, pull_command(request), timeout));
  return pull_result_of(response, address);
}

void ClientApi::pull_message_async(std::string_view address, const PullMessageRequest& request, milliseconds timeout,
                                   PullCallback done) {
  invoke_async(address, pull_command(request), timeout,
               [address = std::string(address), done = std::move(done)](Result<RemotingCommand> response) {
                 if (!response) return done(response.status());
                 done(pull_result_of(*response, address));
               });
}

namespace {

RemotingCommand pop_command(const PopMessageRequest& r) {
  auto request = RemotingCommand::request(rq::kPopMessage);
  auto& f = request.ext_fields;
  put(f, "consumerGroup", r.consumer_group);
  put(f, "topic", r.topic);
  put(f, "queueId", static_cast<std::int64_t>(r.queue_id));
  put(f, "maxMsgNums", static_cast<std::int64_t>(r.max_msg_nums));
  put(f, "invisibleTime", r.invisible_ms);
  put(f, "pollTime", r.poll_ms);
  put(f, "bornTime", kernel::wall_clock_ms());
  put(f, "initMode", std::int64_t{r.init_from_max ? 1 : 0});
  put(f, "expType", r.expression_type);
  put(f, "exp", r.expression);
  put_bool(f, "order", r.order);
  return request;
}

Result<PopResult> pop_result_of(const RemotingCommand& response, std::string_view address, std::string_view broker_name) {
  PopResult result;
  if (response.code == rc::kPullNotFound) return result;
  if (response.code != rc::kSuccess) return response_error(response, address);
  result.found = true;
  MQKIT_ASSIGN_OR_RETURN(result.pop_time, required_int(response, "popTime", address));
  MQKIT_ASSIGN_OR_RETURN(result.invisible_ms, required_int(response, "invisibleTime", address));
  result.rest = response.ext_fields.get_int("restNum").value_or(0);
  const auto revive_qid = static_cast<std::int32_t>(response.ext_fields.get_int("reviveQid").value_or(0));
  // startOffsetInfo: "<retry> <queueId> <start>;..." (ExtraInfoUtil).
  std::map<std::int32_t, std::int64_t> starts;
  const std::string start_info(response.ext_fields.get("startOffsetInfo").value_or(""));
  for (std::string_view rest = start_info; !rest.empty();) {
    const auto end = rest.find(';');
    std::istringstream entry{std::string(rest.substr(0, end))};
    std::string retry;
    std::int32_t queue_id = 0;
    std::int64_t start = 0;
    if (entry >> retry >> queue_id >> start) starts[queue_id] = start;
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  }
  auto messages = decode_messages(response.body);
  if (!messages) return messages.status().with_context("pop response from " + std::string(address));
  result.messages = std::move(messages).value();
  for (auto& m : result.messages) {
    m.broker_name = std::string(broker_name);
    const protocol::PopReceipt receipt{.ck_queue_offset = starts.contains(m.queue_id) ? starts[m.queue_id] : m.queue_offset,
                                       .pop_time = result.pop_time,
                                       .invisible_ms = result.invisible_ms,
                                       .revive_qid = revive_qid,
                                       .retry = "0",
                                       .broker_name = std::string(broker_name),
                                       .queue_id = m.queue_id,
                                       .offset = m.queue_offset};
    m.set_property("POP_CK", protocol::encode_pop_receipt(receipt));
  }
  return result;
}

}  // namespace

Result<PopResult> ClientApi::pop_message(std::string_view address, std::string_view broker_name,
                                         const PopMessageRequest& request, milliseconds timeout) {
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, invoke(address, pop_command(request), effective(timeout)));
  return pop_result_of(response, address, broker_name);
}

void ClientApi::pop_message_async(std::string_view address, std::string_view broker_name,
                                  const PopMessageRequest& request, milliseconds timeout, PopCallback done) {
  invoke_async(address, pop_command(request), timeout,
               [address = std::string(address), broker_name = std::string(broker_name),
                done = std::move(done)](Result<RemotingCommand> response) {
                 if (!response) return done(response.status());
                 done(pop_result_of(*response, address, broker_name));
               });
}

namespace {

// ACK_MESSAGE / CHANGE_MESSAGE_INVISIBLETIME naming the delivery of `receipt` (its text as extraInfo).
RemotingCommand delivery_request(std::int32_t code, std::string_view group, std::string_view topic,
                                 std::string_view receipt_text, const protocol::PopReceipt& receipt) {
  auto request = RemotingCommand::request(code);
  auto& f = request.ext_fields;
  put(f, "consumerGroup", group);
  put(f, "topic", topic);
  put(f, "queueId", static_cast<std::int64_t>(receipt.queue_id));
  put(f, "extraInfo", receipt_text);
  put(f, "offset", receipt.offset);
  return request;
}

}  // namespace

Status ClientApi::ack_message(std::string_view address, std::string_view group, std::string_view topic,
                              std::string_view receipt_text, milliseconds timeout) {
  MQKIT_ASSIGN_OR_RETURN(const protocol::PopReceipt receipt, protocol::decode_pop_receipt(receipt_text));
  return call(address, delivery_request(rq::kAckMessage, group, topic, receipt_text, receipt), timeout).status();
}

void ClientApi::ack_message_async(std::string_view address, std::string_view group, std::string_view topic,
                                  std::string_view receipt_text, milliseconds timeout, StatusCallback done) {
  auto receipt = protocol::decode_pop_receipt(receipt_text);
  if (!receipt) return done(receipt.status());
  invoke_async(address, delivery_request(rq::kAckMessage, group, topic, receipt_text, *receipt), timeout,
               [address = std::string(address), done = std::move(done)](Result<RemotingCommand> response) {
                 if (!response) return done(response.status());
                 done(response->code == rc::kSuccess ? Status::ok() : response_error(*response, address));
               });
}

Result<std::string> ClientApi::change_invisible_time(std::string_view address, std::string_view group,
                                                     std::string_view topic, std::string_view receipt_text,
                                                     std::int64_t invisible_ms, milliseconds timeout) {
  MQKIT_ASSIGN_OR_RETURN(protocol::PopReceipt receipt, protocol::decode_pop_receipt(receipt_text));
  auto request = delivery_request(rq::kChangeMessageInvisibleTime, group, topic, receipt_text, receipt);
  put(request.ext_fields, "invisibleTime", invisible_ms);
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, call(address, std::move(request), timeout));
  MQKIT_ASSIGN_OR_RETURN(receipt.pop_time, required_int(response, "popTime", address));
  MQKIT_ASSIGN_OR_RETURN(receipt.invisible_ms, required_int(response, "invisibleTime", address));
  return protocol::encode_pop_receipt(receipt);
}

Status ClientApi::heartbeat(std::string_view address, const protocol::HeartbeatData& data, milliseconds timeout) {
  return call(address, json_request(rq::kHeartBeat, protocol::encode(data)), timeout).status();
}

Status ClientApi::unregister_client(std::string_view address, std::string_view client_id,
                                    std::string_view producer_group, std::string_view consumer_group,
                                    milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kUnregisterClient);
  put(request.ext_fields, "clientID", client_id);
  if (!producer_group.empty()) put(request.ext_fields, "producerGroup", producer_group);
  if (!consumer_group.empty()) put(request.ext_fields, "consumerGroup", consumer_group);
  return call(address, std::move(request), timeout).status();
}

Result<std::vector<std::string>> ClientApi::get_consumer_id_list(std::string_view address, std::string_view group,
                                                                 milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kGetConsumerListByGroup);
  put(request.ext_fields, "consumerGroup", group);
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, call(address, std::move(request), timeout));
  MQKIT_ASSIGN_OR_RETURN(auto list, protocol::decode_consumer_id_list(protocol::body_text(response)));
  return std::move(list.consumer_id_list);
}

Result<std::int64_t> ClientApi::query_consumer_offset(std::string_view address, std::string_view group,
                                                      const MessageQueue& queue, milliseconds timeout) {
  auto request = queue_request(rq::kQueryConsumerOffset, queue);
  put(request.ext_fields, "consumerGroup", group);
  return call_for_int(address, std::move(request), timeout, "offset");
}

namespace {
RemotingCommand update_offset_request(std::string_view group, const MessageQueue& queue, std::int64_t offset) {
  auto request = queue_request(rq::kUpdateConsumerOffset, queue);
  put(request.ext_fields, "consumerGroup", group);
  put(request.ext_fields, "commitOffset", offset);
  return request;
}
}  // namespace

Status ClientApi::update_consumer_offset(std::string_view address, std::string_view group, const MessageQueue& queue,
                                         std::int64_t offset, milliseconds timeout) {
  return call(address, update_offset_request(group, queue, offset), timeout).status();
}

Status ClientApi::update_consumer_offset_oneway(std::string_view address, std::string_view group,
                                                const MessageQueue& queue, std::int64_t offset) {
  return invoke_oneway(address, update_offset_request(group, queue, offset));
}

Result<std::int64_t> ClientApi::get_max_offset(std::string_view address, const MessageQueue& queue,
                                               milliseconds timeout) {
  return call_for_int(address, queue_request(rq::kGetMaxOffset, queue), timeout, "offset");
}

Result<std::int64_t> ClientApi::get_min_offset(std::string_view address, const MessageQueue& queue,
                                               milliseconds timeout) {
  return call_for_int(address, queue_request(rq::kGetMinOffset, queue), timeout, "offset");
}

Result<std::int64_t> ClientApi::search_offset(std::string_view address, const MessageQueue& queue,
                                              std::int64_t timestamp_ms, milliseconds timeout) {
  auto request = queue_request(rq::kSearchOffsetByTimestamp, queue);
  put(request.ext_fields, "timestamp", timestamp_ms);
  return call_for_int(address, std::move(request), timeout, "offset");
}

Result<std::int64_t> ClientApi::get_earliest_msg_store_time(std::string_view address, const MessageQueue& queue,
                                                            milliseconds timeout) {
  return call_for_int(address, queue_request(rq::kGetEarliestMsgStoreTime, queue), timeout, "timestamp");
}

Status ClientApi::consumer_send_message_back(std::string_view address, const SendBackRequest& r,
                                             milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kConsumerSendMsgBack);
  auto& f = request.ext_fields;
  put(f, "offset", r.commit_log_offset);
  put(f, "group", r.group);
  put(f, "delayLevel", static_cast<std::int64_t>(r.delay_level));
  put(f, "originMsgId", r.origin_msg_id);
  put(f, "originTopic", r.origin_topic);
  put_bool(f, "unitMode", r.unit_mode);
  put(f, "maxReconsumeTimes", static_cast<std::int64_t>(r.max_reconsume_times));
  return call(address, std::move(request), timeout).status();
}

Result<std::set<MessageQueue>> ClientApi::lock_batch_mq(std::string_view address,
                                                        const protocol::LockBatchRequest& request,
                                                        milliseconds timeout) {
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response,
                         call(address, json_request(rq::kLockBatchMq, protocol::encode(request)), timeout));
  MQKIT_ASSIGN_OR_RETURN(auto locked, protocol::decode_lock_batch_response(protocol::body_text(response)));
  return std::move(locked.lock_ok_mq_set);
}

Status ClientApi::unlock_batch_mq(std::string_view address, const protocol::LockBatchRequest& request,
                                  milliseconds timeout) {
  return call(address, json_request(rq::kUnlockBatchMq, protocol::encode(request)), timeout).status();
}

Status ClientApi::unlock_batch_mq_oneway(std::string_view address, const protocol::LockBatchRequest& request) {
  return invoke_oneway(address, json_request(rq::kUnlockBatchMq, protocol::encode(request)));
}

// ---- Administration ------------------------------------------------------------------------

Status ClientApi::create_topic(std::string_view address, const protocol::TopicConfig& topic,
                               std::string_view default_topic, milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kUpdateAndCreateTopic);
  auto& f = request.ext_fields;
  put(f, "topic", topic.topic_name);
  put(f, "defaultTopic", default_topic);
  put(f, "readQueueNums", static_cast<std::int64_t>(topic.read_queue_nums));
  put(f, "writeQueueNums", static_cast<std::int64_t>(topic.write_queue_nums));
  put(f, "perm", static_cast<std::int64_t>(topic.perm));
  put(f, "topicFilterType", topic.topic_filter_type);
  put(f, "topicSysFlag", static_cast<std::int64_t>(topic.topic_sys_flag));
  put_bool(f, "order", topic.order);
  if (!topic.attributes.empty()) put(f, "attributes", protocol::format_attribute_changes(topic.attributes));
  return call(address, std::move(request), timeout).status();
}

Status ClientApi::delete_topic_in_broker(std::string_view address, std::string_view topic, milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kDeleteTopicInBroker);
  put(request.ext_fields, "topic", topic);
  return call(address, std::move(request), timeout).status();
}

Result<protocol::TopicConfigTable> ClientApi::get_all_topic_config(std::string_view address, milliseconds timeout) {
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response,
                         call(address, RemotingCommand::request(rq::kGetAllTopicConfig), timeout));
  return protocol::decode_topic_config_table(protocol::body_text(response));
}

Result<protocol::TopicStatsTable> ClientApi::get_topic_stats(std::string_view address, std::string_view topic,
                                                             milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kGetTopicStatsInfo);
  put(request.ext_fields, "topic", topic);
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, call(address, std::move(request), timeout));
  return protocol::decode_topic_stats(protocol::body_text(response));
}

Result<protocol::ConsumeStats> ClientApi::get_consume_stats(std::string_view address, std::string_view group,
                                                            std::string_view topic, milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kGetConsumeStats);
  put(request.ext_fields, "consumerGroup", group);
  if (!topic.empty()) put(request.ext_fields, "topic", topic);
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, call(address, std::move(request), timeout));
  return protocol::decode_consume_stats(protocol::body_text(response));
}

Result<protocol::KvTable> ClientApi::get_broker_runtime_info(std::string_view address, milliseconds timeout) {
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response,
                         call(address, RemotingCommand::request(rq::kGetBrokerRuntimeInfo), timeout));
  return protocol::decode_kv_table(protocol::body_text(response));
}

Result<protocol::ConsumeStatsList> ClientApi::get_broker_consume_stats(std::string_view address, bool only_ordered,
                                                                       milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kGetBrokerConsumeStats);
  put(request.ext_fields, "isOrder", only_ordered ? "true" : "false");
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, call(address, std::move(request), timeout));
  return protocol::decode_consume_stats_list(protocol::body_text(response));
}

Result<std::set<std::string>> ClientApi::topic_consumed_by(std::string_view address, std::string_view topic,
                                                           milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kQueryTopicConsumeByWho);
  put(request.ext_fields, "topic", topic);
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, call(address, std::move(request), timeout));
  MQKIT_ASSIGN_OR_RETURN(protocol::GroupList groups, protocol::decode_group_list(protocol::body_text(response)));
  return std::move(groups.group_list);
}

Result<std::optional<protocol::BrokerStatsData>> ClientApi::view_broker_stats_data(std::string_view address,
                                                                                  std::string_view name,
                                                                                  std::string_view key,
                                                                                  milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kViewBrokerStatsData);
  put(request.ext_fields, "statsName", name);
  put(request.ext_fields, "statsKey", key);
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, invoke(address, std::move(request), timeout));
  const std::string_view remark = response.remark ? std::string_view(*response.remark) : std::string_view();
  if (response.code == rc::kSystemError && remark.starts_with("The stats <") && remark.ends_with("> not exist")) {
    return std::optional<protocol::BrokerStatsData>();
  }
  if (response.code != rc::kSuccess) return response_error(response, address);
  MQKIT_ASSIGN_OR_RETURN(protocol::BrokerStatsData data, protocol::decode_broker_stats_data(protocol::body_text(response)));
  return std::optional(std::move(data));
}

Result<protocol::TopicConfig> ClientApi::get_topic_config(std::string_view address, std::string_view topic,
                                                          milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kGetTopicConfig);
  put(request.ext_fields, "topic", topic);
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, call(address, std::move(request), timeout));
  return protocol::decode_topic_config(protocol::body_text(response));
}

Result<protocol::SubscriptionGroupConfig> ClientApi::get_subscription_group(std::string_view address,
                                                                          std::string_view group, milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kGetSubscriptionGroupConfig);
  put(request.ext_fields, "group", group);
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, call(address, std::move(request), timeout));
  return protocol::decode_subscription_group(protocol::body_text(response));
}

Result<std::string> ClientApi::delete_expired_commit_log(std::string_view address, milliseconds timeout) {
  return call_for_remark(address, rq::kDeleteExpiredCommitLog, timeout);
}

Result<std::string> ClientApi::clean_expired_consume_queue(std::string_view address, milliseconds timeout) {
  return call_for_remark(address, rq::kCleanExpiredConsumeQueue, timeout);
}

Result<std::string> ClientApi::clean_unused_topic(std::string_view address, milliseconds timeout) {
  return call_for_remark(address, rq::kCleanUnusedTopic, timeout);
}

Result<protocol::QueryConsumeQueueResponse> ClientApi::query_consume_queue(std::string_view address,
                                                                           std::string_view topic, std::int32_t queue_id,
                                                                           std::int64_t index, std::int32_t count,
                                                                           std::string_view group, milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kQueryConsumeQueue);
  put(request.ext_fields, "topic", topic);
  request.ext_fields.set("queueId", static_cast<std::int64_t>(queue_id));
  request.ext_fields.set("index", index);
  request.ext_fields.set("count", static_cast<std::int64_t>(count));
  if (!group.empty()) put(request.ext_fields, "consumerGroup", group);
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, call(address, std::move(request), timeout));
  return protocol::decode_query_consume_queue_response(protocol::body_text(response));
}

Result<protocol::HaRuntimeInfo> ClientApi::get_broker_ha_status(std::string_view address, milliseconds timeout) {
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response,
                         call(address, RemotingCommand::request(rq::kGetBrokerHaStatus), timeout));
  return protocol::decode_ha_runtime_info(protocol::body_text(response));
}

Status ClientApi::update_subscription_group(std::string_view address, const protocol::SubscriptionGroupConfig& group,
                                            milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kUpdateAndCreateSubscriptionGroup);
  protocol::set_body(request, protocol::encode_subscription_group(group));
  return call(address, std::move(request), timeout).status();
}

Status ClientApi::update_subscription_groups(std::string_view address,
                                             const std::vector<protocol::SubscriptionGroupConfig>& groups,
                                             milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kUpdateAndCreateSubscriptionGroupList);
  protocol::set_body(request, protocol::encode_subscription_group_list(groups));
  return call(address, std::move(request), timeout).status();
}

Status ClientApi::create_topics(std::string_view address, const std::vector<protocol::TopicConfig>& topics,
                                milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kUpdateAndCreateTopicList);
  protocol::set_body(request, protocol::encode_topic_config_list(topics));
  return call(address, std::move(request), timeout).status();
}

Status ClientApi::delete_subscription_group(std::string_view address, std::string_view group, milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kDeleteSubscriptionGroup);
  put(request.ext_fields, "groupName", group);
  return call(address, std::move(request), timeout).status();
}

Result<std::map<std::string, protocol::SubscriptionGroupConfig>> ClientApi::get_all_subscription_groups(
    std::string_view address, milliseconds timeout) {
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response,
                         call(address, RemotingCommand::request(rq::kGetAllSubscriptionGroupConfig), timeout));
  return protocol::decode_subscription_group_table(protocol::body_text(response));
}

Result<std::map<std::string, std::string>> ClientApi::get_config(std::string_view address, std::int32_t code,
                                                                 milliseconds timeout) {
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, call(address, RemotingCommand::request(code), timeout));
  return protocol::decode_java_properties(protocol::body_text(response));
}

Status ClientApi::update_config(std::string_view address, std::int32_t code,
                                const std::map<std::string, std::string>& properties, milliseconds timeout) {
  auto request = RemotingCommand::request(code);
  protocol::set_body(request, protocol::encode_java_properties(properties));
  return call(address, std::move(request), timeout).status();
}

Result<std::map<std::string, std::string>> ClientApi::get_broker_config(std::string_view address,
                                                                        milliseconds timeout) {
  return get_config(address, rq::kGetBrokerConfig, timeout);
}

Status ClientApi::update_broker_config(std::string_view address, const std::map<std::string, std::string>& properties,
                                       milliseconds timeout) {
  return update_config(address, rq::kUpdateBrokerConfig, properties, timeout);
}

Result<std::map<std::string, std::string>> ClientApi::get_namesrv_config(std::string_view namesrv_address,
                                                                         milliseconds timeout) {
  return get_config(namesrv_address, rq::kGetNamesrvConfig, timeout);
}

Status ClientApi::update_namesrv_config(std::string_view namesrv_address,
                                        const std::map<std::string, std::string>& properties, milliseconds timeout) {
  return update_config(namesrv_address, rq::kUpdateNamesrvConfig, properties, timeout);
}

Status ClientApi::update_acl_config(std::string_view address, const AclAccountUpdate& account, milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kUpdateAndCreateAclConfig);
  put(request.ext_fields, "accessKey", account.access_key);
  const auto put_given = [&](const char* key, const std::optional<std::string>& value) {
    if (value) put(request.ext_fields, key, *value);
  };
  put_given("secretKey", account.secret_key);
  put_given("whiteRemoteAddress", account.white_remote_address);
  put_given("defaultTopicPerm", account.default_topic_perm);
  put_given("defaultGroupPerm", account.default_group_perm);
  if (account.admin) put_bool(request.ext_fields, "admin", *account.admin);
  if (account.topic_perms) put(request.ext_fields, "topicPerms", protocol::comma_joined(*account.topic_perms));
  if (account.group_perms) put(request.ext_fields, "groupPerms", protocol::comma_joined(*account.group_perms));
  return call(address, std::move(request), timeout).status();
}

Status ClientApi::delete_acl_config(std::string_view address, std::string_view access_key, milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kDeleteAclConfig);
  put(request.ext_fields, "accessKey", access_key);
  return call(address, std::move(request), timeout).status();
}

Status ClientApi::update_global_white_addresses(std::string_view address, const std::vector<std::string>& addresses,
                                                milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kUpdateGlobalWhiteAddrsConfig);
  put(request.ext_fields, "globalWhiteAddrs", protocol::comma_joined(addresses));
  return call(address, std::move(request), timeout).status();
}

Result<BrokerAclVersion> ClientApi::get_broker_acl_version(std::string_view address, milliseconds timeout) {
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response,
                         call(address, RemotingCommand::request(rq::kGetBrokerClusterAclInfo), timeout));
  const auto& fields = response.ext_fields;
  BrokerAclVersion answer;
  answer.cluster_name = std::string(fields.get("clusterName").value_or(""));
  answer.broker_name = std::string(fields.get("brokerName").value_or(""));
  answer.broker_addr = std::string(fields.get("brokerAddr").value_or(""));
  if (const auto version = fields.get("version"); version && !version->empty()) {
    MQKIT_ASSIGN_OR_RETURN(answer.version, protocol::decode_data_version(*version));
  }
  if (const auto files = fields.get("allAclFileVersion"); files && !files->empty()) {
    MQKIT_ASSIGN_OR_RETURN(answer.files, protocol::decode_data_versions(*files));
  }
  return answer;
}

Result<protocol::ConsumerConnection> ClientApi::get_consumer_connection_list(std::string_view address,
                                                                           std::string_view group,
                                                                           milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kGetConsumerConnectionList);
  put(request.ext_fields, "consumerGroup", group);
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, call(address, std::move(request), timeout));
  return protocol::decode_consumer_connection(protocol::body_text(response));
}

Result<protocol::ProducerConnection> ClientApi::get_producer_connection_list(std::string_view address,
                                                                           std::string_view group,
                                                                           milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kGetProducerConnectionList);
  put(request.ext_fields, "producerGroup", group);
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, call(address, std::move(request), timeout));
  return protocol::decode_producer_connection(protocol::body_text(response));
}

Result<std::string> ClientApi::recall_message(std::string_view address, std::string_view producer_group,
                                              std::string_view topic, std::string_view recall_handle,
                                              milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kRecallMessage);
  put(request.ext_fields, "producerGroup", producer_group);
  put(request.ext_fields, "topic", topic);
  put(request.ext_fields, "recallHandle", recall_handle);
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, call(address, std::move(request), timeout));
  return std::string(response.ext_fields.get("msgId").value_or(""));
}

Result<protocol::ProducerTableInfo> ClientApi::get_all_producer_info(std::string_view address, milliseconds timeout) {
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response,
                         call(address, RemotingCommand::request(rq::kGetAllProducerInfo), timeout));
  return protocol::decode_producer_table_info(protocol::body_text(response));
}

Result<QueryMessageResult> ClientApi::query_message(std::string_view address, const QueryMessageRequest& r,
                                                    milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kQueryMessage);
  auto& f = request.ext_fields;
  put(f, "topic", r.topic);
  put(f, "key", r.key);
  put(f, "maxNum", static_cast<std::int64_t>(r.max_num));
  put(f, "beginTimestamp", r.begin_timestamp_ms);
  put(f, "endTimestamp", r.end_timestamp_ms);
  if (r.unique_key) put_bool(f, "_UNIQUE_KEY_QUERY", true);
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, invoke(address, std::move(request), timeout));
  QueryMessageResult result;
  if (response.code == rc::kQueryNotFound) return result;
  if (response.code != rc::kSuccess) return response_error(response, address);
  result.index_last_update_timestamp = response.ext_fields.get_int("indexLastUpdateTimestamp").value_or(0);
  result.index_last_update_phy_offset = response.ext_fields.get_int("indexLastUpdatePhyoffset").value_or(0);
  MQKIT_ASSIGN_OR_RETURN(result.messages, decode_messages(response.body));
  return result;
}

Result<MessageExt> ClientApi::view_message(std::string_view address, std::int64_t commit_log_offset,
                                           milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kViewMessageById);
  put(request.ext_fields, "offset", commit_log_offset);
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, call(address, std::move(request), timeout));
  MQKIT_ASSIGN_OR_RETURN(auto messages, decode_messages(response.body));
  if (messages.size() != 1) {
    return Status::corruption("view response from " + std::string(address) + " holds " +
                              std::to_string(messages.size()) + " messages instead of one");
  }
  return std::move(messages.front());
}

Result<MessageExt> ClientApi::view_message_by_id(std::string_view offset_msg_id, milliseconds timeout) {
  auto id = v1::parse_offset_message_id(offset_msg_id);
  if (!id) {
    // Appended, not "'" + string: GCC 12 at -O3 warns falsely (-Wrestrict) on that concatenation.
    std::string problem(1, '\'');
    problem.append(offset_msg_id).append("' is not an offset message id: ").append(id.status().message());
    return Status::invalid_argument(problem);
  }
  return view_message(v1::to_string(id->store_host), id->commit_offset, timeout);
}

Result<std::map<MessageQueue, std::int64_t>> ClientApi::reset_offset(std::string_view address, std::string_view topic,
                                                                     std::string_view group, std::int64_t timestamp_ms,
                                                                     bool force, milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kInvokeBrokerToResetOffset);
  put(request.ext_fields, "topic", topic);
  put(request.ext_fields, "group", group);
  put(request.ext_fields, "timestamp", timestamp_ms);
  put_bool(request.ext_fields, "isForce", force);
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, call(address, std::move(request), timeout));
  MQKIT_ASSIGN_OR_RETURN(protocol::ResetOffsetBody body, protocol::decode_reset_offset_body(protocol::body_text(response)));
  return std::move(body.offset_table);
}

Result<std::map<std::string, std::map<MessageQueue, std::int64_t>>> ClientApi::get_consumer_status(
    std::string_view address, std::string_view topic, std::string_view group, std::string_view client_id,
    milliseconds timeout) {
  auto request = RemotingCommand::request(rq::kInvokeBrokerToGetConsumerStatus);
  put(request.ext_fields, "topic", topic);
  put(request.ext_fields, "group", group);
  if (!client_id.empty()) put(request.ext_fields, "clientAddr", client_id);
  MQKIT_ASSIGN_OR_RETURN(RemotingCommand response, call(address, std::move(request), timeout));
  MQKIT_ASSIGN_OR_RETURN(protocol::GetConsumerStatusBody body,
                         protocol::decode_get_consumer_status_body(protocol::body_text(response)));
  return std::move(body.consumer_table);
}

}  // namespace mqkit::client
