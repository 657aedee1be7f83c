// How the SDK runs the application's hooks (mqkit/client/hooks.hpp): in registration order, each
// one guarded, so a hook that throws is logged and the send or listener call goes on.
#pragma once

#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/client/hooks.hpp"

namespace mqkit::client {

using SendHooks = std::vector<std::shared_ptr<SendHook>>;
using ConsumeHooks = std::vector<std::shared_ptr<ConsumeHook>>;
using EndTransactionHooks = std::vector<std::shared_ptr<EndTransactionHook>>;

void run_before_send(const SendHooks& hooks, Message& message) noexcept;
void run_after_send(const SendHooks& hooks, const SendHookContext& attempt) noexcept;
void run_end_transaction(const EndTransactionHooks& hooks, const EndTransactionHookContext& ended) noexcept;

// One listener call's consume hooks: before_consume on construction, after_consume in after().
class ConsumeHookCalls {
 public:
  ConsumeHookCalls(const ConsumeHooks& hooks, std::string_view group, const MessageQueue& queue,
                   std::span<const MessageExt> messages);
  void after(bool success, trace::ConsumeReturnType return_type, std::chrono::milliseconds took) noexcept;

 private:
  const ConsumeHooks& hooks_;
  std::vector<ConsumeHookContext> calls_;  // one per hook
};

// register_*_hook: `hook` joins `hooks` while its client has not started (`started` false).
template <typename Hook>
Status add_hook(std::vector<std::shared_ptr<Hook>>& hooks, std::shared_ptr<Hook> hook, bool started,
                std::string_view client) {
  if (!hook) return Status::invalid_argument("the hook is null");
  if (started) return Status::unavailable("register hooks before start(): " + std::string(client));
  hooks.push_back(std::move(hook));
  return Status::ok();
}

// A non-owning handle on a hook its owner keeps alive for as long as the list that holds it.
template <typename Hook>
std::shared_ptr<Hook> unowned_hook(Hook& hook) {
  return std::shared_ptr<Hook>(std::shared_ptr<Hook>{}, &hook);
}

}  // namespace mqkit::client
