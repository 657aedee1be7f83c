// The vocabulary types the SDK shares with the rest of mqkit: Status/Result (every fallible
// call), MessageQueue (one queue of a topic on one broker) and the message properties list.
#pragma once

#include "mqkit/plugin/v1/message_queue.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::client {

using plugin::v1::MessageQueue;
using plugin::v1::Result;
using plugin::v1::Status;
using plugin::v1::StatusCode;

}  // namespace mqkit::client
