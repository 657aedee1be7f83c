// What makes a message a request (RocketMQ's DefaultMQProducerImpl.prepareSendRequest): a new
// CORRELATION_ID, REPLY_TO_CLIENT naming the requesting client and TTL, the request's timeout.
// Any thread.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "mqkit/client/message.hpp"

namespace mqkit::client {

// A random UUID ("xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx"), as RocketMQ's CorrelationIdUtil makes.
std::string new_correlation_id();

// Sets the request properties on `message`; returns its new correlation id.
std::string tag_request(Message& message, std::string_view client_id, std::chrono::milliseconds timeout);

}  // namespace mqkit::client
