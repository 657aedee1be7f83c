// The broker's request processors and the services they need, wired in one place.
#include "mqkit/broker/broker_controller.hpp"
#include "mqkit/broker/consume/admin_broker_processor.hpp"
#include "mqkit/broker/consume/client_manage_processor.hpp"
#include "mqkit/broker/consume/consumer_manage_processor.hpp"
#include "mqkit/broker/consume/pop_message_processor.hpp"
#include "mqkit/broker/consume/pull_message_processor.hpp"
#include "mqkit/broker/consume/query_message_processor.hpp"
#include "mqkit/broker/consume/store_admin_processor.hpp"
#include "mqkit/broker/send/end_transaction_processor.hpp"
#include "mqkit/broker/send/recall_message_processor.hpp"
#include "mqkit/broker/send/reply_message_processor.hpp"
#include "mqkit/broker/send/schedule_message_service.hpp"
#include "mqkit/broker/send/send_message_processor.hpp"
#include "mqkit/broker/send/timer_message_service.hpp"
#include "mqkit/broker/send/transaction_service.hpp"

namespace mqkit::broker {

namespace {
struct ProcessorServices {
  std::unique_ptr<ScheduleMessageService> schedule;
  std::unique_ptr<TimerMessageService> timer;
  std::unique_ptr<TransactionService> transactions;
};
}  // namespace

plugin::v1::Result<std::shared_ptr<void>> install_processors(BrokerRequestHandler& handler, BrokerContext& context,
                                                             MetadataFiles& files) {
  auto services = std::make_shared<ProcessorServices>();
  services->schedule = std::make_unique<ScheduleMessageService>(context, files);
  context.schedule = services->schedule.get();
  // Schedule-topic consume queue entries carry their delivery time, as in RocketMQ.
  context.dispatch->set_tags_code_fn(ScheduleMessageService::tags_code_fn(context.config->delay_level_ms));
  services->timer = std::make_unique<TimerMessageService>(context, files);
  services->transactions = std::make_unique<TransactionService>(context);
  context.transactions = services->transactions.get();

  handler.add(std::make_shared<SendMessageProcessor>(context));
  handler.add(std::make_shared<ReplyMessageProcessor>(context));
  handler.add(std::make_shared<EndTransactionProcessor>(context));
  handler.add(std::make_shared<RecallMessageProcessor>(context));
  handler.add(std::make_shared<PullMessageProcessor>(context));
  handler.add(std::make_shared<PopMessageProcessor>(context));
  handler.add(std::make_shared<ClientManageProcessor>(context));
  handler.add(std::make_shared<ConsumerManageProcessor>(context));
  handler.add(std::make_shared<QueryMessageProcessor>(context));
  handler.add(std::make_shared<AdminBrokerProcessor>(context));
  handler.add(std::make_shared<StoreAdminProcessor>(context));
  return std::static_pointer_cast<void>(services);
}

plugin::v1::Status start_processor_services(const std::shared_ptr<void>& services) {
  auto* started = static_cast<ProcessorServices*>(services.get());
  MQKIT_RETURN_IF_ERROR(started->schedule->start());
  MQKIT_RETURN_IF_ERROR(started->timer->start());
  started->transactions->start();
  return plugin::v1::Status::ok();
}

void stop_processor_services(const std::shared_ptr<void>& services) noexcept {
  if (!services) return;
  auto* running = static_cast<ProcessorServices*>(services.get());
  running->transactions->stop();
  running->timer->stop();
  running->schedule->stop();
}

}  // namespace mqkit::broker
