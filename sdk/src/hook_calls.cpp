#include "hook_calls.hpp"

#include <exception>
#include <string>

#include "mqkit/kernel/logging.hpp"

namespace mqkit::client {

namespace {

template <typename Call>
void guarded(std::string_view kind, std::string_view name, Call&& call) noexcept {
  try {
    call();
  } catch (const std::exception& e) {
    kernel::logger("client")->error("{} hook {} threw: {}", kind, name, e.what());
  } catch (...) {
    kernel::logger("client")->error("{} hook {} threw (not a std::exception)", kind, name);
  }
}

}  // namespace

void run_before_send(const SendHooks& hooks, Message& message) noexcept {
  for (const auto& hook : hooks) guarded("send", hook->name(), [&] { hook->before_send(message); });
}

void run_after_send(const SendHooks& hooks, const SendHookContext& attempt) noexcept {
  for (const auto& hook : hooks) guarded("send", hook->name(), [&] { hook->after_send(attempt); });
}

void run_end_transaction(const EndTransactionHooks& hooks, const EndTransactionHookContext& ended) noexcept {
  for (const auto& hook : hooks) guarded("end transaction", hook->name(), [&] { hook->end_transaction(ended); });
}

ConsumeHookCalls::ConsumeHookCalls(const ConsumeHooks& hooks, std::string_view group, const MessageQueue& queue,
                                   std::span<const MessageExt> messages)
    : hooks_(hooks) {
  calls_.reserve(hooks_.size());
  for (const auto& hook : hooks_) {
    ConsumeHookContext& call = calls_.emplace_back();
    call.consumer_group = group;
    call.queue = queue;
    call.messages = messages;
    guarded("consume", hook->name(), [&] { hook->before_consume(call); });
  }
}

void ConsumeHookCalls::after(bool success, trace::ConsumeReturnType return_type, std::chrono::milliseconds took) noexcept {
  for (std::size_t i = 0; i < hooks_.size(); ++i) {
    ConsumeHookContext& call = calls_[i];
    call.success = success;
    call.return_type = return_type;
    call.took = took;
    guarded("consume", hooks_[i]->name(), [&] { hooks_[i]->after_consume(call); });
  }
}

}  // namespace mqkit::client
