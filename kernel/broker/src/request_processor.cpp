#include "mqkit/broker/request_processor.hpp"

#include "mqkit/kernel/logging.hpp"
#include "mqkit/protocol/codes.hpp"

namespace mqkit::broker {

namespace rc = protocol::response_code;

void Responder::respond(RemotingCommand response) const {
  if (oneway_) return timer_.answered(request_code_, response.code, long_polling_, metrics::RpcResult::kOneway);
  response.opaque = opaque_;
  response.flag |= RemotingCommand::kResponseFlag;
  response.serialize_type = serialize_type_;
  const std::int32_t code = response.code;
  const auto sent = channel_->send(std::move(response));
  timer_.answered(request_code_, code, long_polling_,
                  sent ? metrics::RpcResult::kSuccess : metrics::RpcResult::kWriteChannelFailed);
  if (!sent) kernel::logger("broker")->debug("response to {} not sent: {}", channel_->remote_address(), sent.to_string());
}

void Responder::fail(std::int32_t code, std::string remark) const {
  RemotingCommand response;
  response.code = code;
  response.remark = std::move(remark);
  respond(std::move(response));
}

void BrokerRequestHandler::add(std::shared_ptr<RequestProcessor> processor) {
  for (const auto code : processor->codes()) processors_[code] = processor;
}

void BrokerRequestHandler::on_request(const std::shared_ptr<Channel>& channel, RemotingCommand request) noexcept {
  Responder responder(channel, request, rpc_);
  const std::int32_t code = request.code;
  if (const State state = state_.load(std::memory_order_acquire); state != State::kOpen) {
    responder.fail(rc::kServiceNotAvailable, state == State::kStarting ? "the broker is starting; try again later"
                                                                         : "the broker is stopping");
    return;
  }
  try {
    if (access_check_) {
      if (plugin::v1::Status allowed = access_check_(*channel, request); !allowed) {
        kernel::logger("broker")->info("request {} from {} refused: {}", code, channel->remote_address(),
                                       allowed.message());
        responder.fail(rc::kSystemError, allowed.message());
        return;
      }
    }
    auto it = processors_.find(code);
    if (it == processors_.end()) {
      responder.fail(rc::kRequestCodeNotSupported, " request type " + std::to_string(code) + " not supported");
      return;
    }
    it->second->process(std::move(request), responder);
  } catch (const std::exception& e) {
    kernel::logger("broker")->error("request {} from {} failed: {}", code, channel->remote_address(), e.what());
    responder.fail(rc::kSystemError, e.what());
  }
}

void BrokerRequestHandler::on_channel_closed(const std::shared_ptr<Channel>& channel) noexcept {
  for (const auto& listener : closed_listeners_) {
    try {
      listener(channel->id());
    } catch (const std::exception& e) {
      kernel::logger("broker")->warn("cleanup after {} closed failed: {}", channel->remote_address(), e.what());
    }
  }
}

}  // namespace mqkit::broker
