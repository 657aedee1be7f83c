// ProducerConfig: a producer's own settings (RocketMQ DefaultMQProducer) plus the ClientConfig
// it shares with every client. Defaults are RocketMQ 4.9's (rocketmq-facts §4.1).
//
// From TOML, [producer] holds the keys of producer_schema(); see also client_config.hpp.
// A plain value type; not synchronized.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "mqkit/client/client_config.hpp"

namespace mqkit::client {

struct ProducerConfig {
  ClientConfig client{};
  std::string group = "DEFAULT_PRODUCER";
  // Whole send, retries included (sendMsgTimeout).
  std::chrono::milliseconds send_msg_timeout{3000};
  int retry_times_when_send_failed = 2;
  int retry_times_when_send_async_failed = 2;
  // Try another broker when a broker stored the message but answered FLUSH_*_TIMEOUT or
  // SLAVE_NOT_AVAILABLE (sync sends).
  bool retry_another_broker_when_not_store_ok = false;
  // Bodies longer than this are zlib-compressed (never batches).
  std::size_t compress_msg_body_over_howmuch = 4096;
  int compress_level = 5;
  // Checked on the uncompressed body (and on the encoded batch).
  std::size_t max_message_size = 4 * 1024 * 1024;
  // Queues per broker of a topic the broker creates on first send (through create_topic_key).
  int default_topic_queue_nums = 4;
  std::string create_topic_key = "TBW102";
  // The async window: at most this many messages / request bytes (body, properties, header)
  // awaiting their response. A full window makes send_async wait (up to send_msg_timeout), so
  // memory stays bounded.
  std::size_t max_in_flight_async_messages = 10000;
  std::size_t max_in_flight_async_bytes = 64 * 1024 * 1024;
  // Auto batching (RocketMQ 5's DefaultMQProducer#setAutoBatch, ProduceAccumulator): async
  // sends of single messages to one queue travel together as SEND_BATCH_MESSAGE; each callback
  // still gets its own SendResult. Messages that arrive while a request to their queue is in
  // flight form the next batch (one request per queue at a time, so each queue keeps the order
  // of the sends), so batching costs no delay at low rates.
  bool auto_batch = false;
  // How long a message to a queue with no request in flight waits for more before it is sent
  // (RocketMQ batchMaxDelayMs); 0 = at once.
  std::chrono::milliseconds batch_max_delay{0};
  // Body and properties bytes of one batch at most (RocketMQ batchMaxBytes). Larger than
  // RocketMQ's 32KiB: with one request per queue in flight, a queue moves at most this much per
  // round trip.
  std::size_t batch_max_bytes = 256 * 1024;
  // Bytes waiting in every queue's next batch at most; send_async waits for room (RocketMQ
  // totalBatchMaxBytes).
  std::size_t total_batch_max_bytes = 32 * 1024 * 1024;
  // TransactionProducer only: threads that run check_local_transaction for brokers' checks
  // (RocketMQ checkThreadPoolMinSize/MaxSize).
  std::size_t check_thread_pool_size = 1;
  // TransactionProducer only: checks waiting for a check thread at most; a check beyond it is
  // dropped with a warning, and the broker asks again at its next check (checkRequestHoldMax).
  std::size_t check_request_hold_max = 2000;
  // Message trace (RocketMQ enableMsgTrace, customizedTraceTopic; docs/sdk.md "Message trace"): a
  // Pub record per answered send and an EndTransaction record per END_TRANSACTION go to the trace
  // topic through an inner trace producer. Empty topic = RMQ_SYS_TRACE_TOPIC.
  bool enable_msg_trace = false;
  std::string customized_trace_topic = "RMQ_SYS_TRACE_TOPIC";

  // InvalidArgument naming the first bad value (client settings included).
  Status validate() const;
};

// Schema of the [producer] section.
const plugin::v1::ConfigSchema& producer_schema();

// Reads [producer] and everything load_client_config reads.
Result<ProducerConfig> load_producer_config(kernel::Bootstrap& boot);

}  // namespace mqkit::client
