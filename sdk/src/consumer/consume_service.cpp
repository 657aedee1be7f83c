#include "consume_service.hpp"

#include "mqkit/kernel/logging.hpp"
#include "mqkit/protocol/namespace.hpp"
#include "queue_broker.hpp"

namespace mqkit::client {

void log_listener_exception(std::string_view group, const MessageQueue& queue, std::string_view what) {
  kernel::logger("client")->warn("{}: the listener threw on {} ({}); the messages will be consumed again", group,
                                 queue.to_string(), what);
}

ConsumeService::ConsumeService(ConsumeEnvironment environment)
    : env_(environment), pool_("consume", static_cast<std::size_t>(env_.config.consume_thread_count)) {}

ConsumeService::~ConsumeService() { shutdown(); }

void ConsumeService::shutdown() {
  stopping_.store(true);
  if (joined_.exchange(true)) return;
  background_.stop();
  pool_.join();
}

Status ConsumeService::send_message_back(const MessageExt& message, const MessageQueue& queue, int delay_level,
                                         int max_reconsume_times) {
  MQKIT_ASSIGN_OR_RETURN(const std::string address, master_of(env_.instance, queue));
  SendBackRequest request;
  request.commit_log_offset = message.commit_log_offset;
  request.group = env_.config.group;
  request.delay_level = delay_level;
  request.origin_msg_id = message.msg_id();
  // The application saw the topic without the namespace; the broker knows it with.
  request.origin_topic = protocol::wrap_namespace(env_.config.client.name_space, message.topic());
  request.max_reconsume_times = max_reconsume_times;
  return env_.instance.api().consumer_send_message_back(address, request);
}

}  // namespace mqkit::client
