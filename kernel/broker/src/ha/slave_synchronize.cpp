#include "slave_synchronize.hpp"

#include <chrono>
#include <future>
#include <optional>

#include "mqkit/broker/consumer_offset_manager.hpp"
#include "mqkit/broker/send/schedule_message_service.hpp"
#include "mqkit/broker/subscription_group_manager.hpp"
#include "mqkit/broker/topic_config_manager.hpp"
#include "mqkit/kernel/logging.hpp"
#include "mqkit/protocol/acl_signature.hpp"
#include "mqkit/protocol/bodies.hpp"
#include "mqkit/protocol/codes.hpp"
#include "mqkit/protocol/header_fields.hpp"
#include "mqkit/protocol/subscription_group.hpp"

namespace mqkit::broker::ha {

namespace {

namespace v1 = plugin::v1;
namespace rc = protocol::response_code;
namespace rq = protocol::request_code;

constexpr std::chrono::seconds kTimeout{3};  // RocketMQ's BrokerOuterAPI waits 3 s for each

// The body of the master's answer to `code`; nullopt (logged) when there is none. Signed with the
// broker's own account when it has one, for a master that checks ACL (docs/acl.md).
std::optional<std::string> ask(const BrokerContext& context, v1::Transport& transport, const std::string& master,
                               std::int32_t code, const char* what) {
  auto request = v1::RemotingCommand::request(code);
  if (const auto& credentials = context.config->acl_credentials; !credentials.empty()) {
    if (auto signed_ok = protocol::acl::sign(request, credentials); !signed_ok) {
      kernel::logger("broker")->error("{} from master {}: {}", what, master, signed_ok.to_string());
      return std::nullopt;
    }
  }
  auto answer = std::make_shared<std::promise<v1::Result<v1::RemotingCommand>>>();
  auto future = answer->get_future();
  transport.invoke(master, std::move(request), kTimeout,
                   [answer](v1::Result<v1::RemotingCommand> r) { answer->set_value(std::move(r)); });
  auto response = future.get();
  if (!response || response->code != rc::kSuccess) {
    kernel::logger("broker")->warn("{} from master {}: {}", what, master,
                                   response ? response->remark.value_or("code " + std::to_string(response->code))
                                            : response.status().to_string());
    return std::nullopt;
  }
  return std::string(protocol::body_text(*response));
}

// Logs a part that could not be decoded or taken.
void failed(const char* what, const std::string& master, const v1::Status& status) {
  kernel::logger("broker")->error("taking the {} of master {}: {}", what, master, status.to_string());
}

void sync_topic_configs(BrokerContext& context, v1::Transport& transport, const std::string& master) {
  constexpr const char* what = "topic configs";
  const auto body = ask(context, transport, master, rq::kGetAllTopicConfig, what);
  if (!body) return;
  auto table = protocol::decode_topic_config_table(*body);
  if (!table) return failed(what, master, table.status());
  auto replaced = context.topics->replace_from_master(std::move(*table));
  if (!replaced) return failed(what, master, replaced.status());
  if (*replaced) kernel::logger("broker")->info("topic configs updated from master {}", master);
}

void sync_consumer_offsets(BrokerContext& context, v1::Transport& transport, const std::string& master) {
  constexpr const char* what = "consumer offsets";
  const auto body = ask(context, transport, master, rq::kGetAllConsumerOffset, what);
  if (!body) return;
  auto table = ConsumerOffsetManager::decode(*body);
  if (!table) return failed(what, master, table.status());
  if (auto s = context.offsets->merge_from_master(std::move(*table)); !s) failed(what, master, s);
}

void sync_delay_offsets(BrokerContext& context, v1::Transport& transport, const std::string& master) {
  constexpr const char* what = "delay offsets";
  if (context.schedule == nullptr) return;
  const auto body = ask(context, transport, master, rq::kGetAllDelayOffset, what);
  if (!body) return;
  auto offsets = ScheduleMessageService::decode_offsets(*body);
  if (!offsets) return failed(what, master, offsets.status());
  if (auto s = context.schedule->replace_offsets(std::move(*offsets)); !s) failed(what, master, s);
}

void sync_subscription_groups(BrokerContext& context, v1::Transport& transport, const std::string& master) {
  constexpr const char* what = "subscription groups";
  const auto body = ask(context, transport, master, rq::kGetAllSubscriptionGroupConfig, what);
  if (!body) return;
  auto groups = protocol::decode_subscription_group_table(*body);
  if (!groups) return failed(what, master, groups.status());
  auto replaced = context.groups->replace_from_master(std::move(*groups));
  if (!replaced) return failed(what, master, replaced.status());
  if (*replaced) kernel::logger("broker")->info("subscription groups updated from master {}", master);
}

}  // namespace

void synchronize_from_master(BrokerContext& context, v1::Transport& transport, const std::string& master) {
  sync_topic_configs(context, transport, master);
  sync_consumer_offsets(context, transport, master);
  sync_delay_offsets(context, transport, master);
  sync_subscription_groups(context, transport, master);
}

}  // namespace mqkit::broker::ha
