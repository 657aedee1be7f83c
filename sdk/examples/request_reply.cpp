// Quick start for request-reply (RPC over the queue): a push consumer answers every request on
// RequestTopic with create_reply_message, and a producer sends three requests, waiting for each
// reply (Producer::request), then one more whose reply comes to a callback (request_async).
//   example_request_reply [namesrv host:port[;host:port]]   (or set $NAMESRV_ADDR)
// The requester and the responder would usually be different programs; both are here so the
// example runs alone. A broker that auto-creates topics creates RequestTopic on the first request;
// the responder finds it within a second (short route refresh) and reads it from its start.
#include <chrono>
#include <cstdio>
#include <future>
#include <string>

#include "mqkit/client/producer.hpp"
#include "mqkit/client/push_consumer.hpp"
#include "mqkit/client/request_reply.hpp"

using namespace mqkit::client;
using namespace std::chrono_literals;

int main(int argc, char** argv) {
  const std::string topic = "RequestTopic";
  ClientConfig client;
  if (argc > 1) client.namesrv_addresses = split_namesrv_addresses(argv[1]);
  client.poll_name_server_interval = 1s;
  client.rebalance_interval = 1s;

  // The responder: replies through a producer of its own.
  ProducerConfig reply_config;
  reply_config.client = client;
  reply_config.group = "example_reply_producer";
  Producer reply_producer(reply_config);
  ConsumerConfig consumer_config;
  consumer_config.client = client;
  consumer_config.group = "example_request_consumer";
  consumer_config.consume_from_where = ConsumeFromWhere::kFirstOffset;
  PushConsumer responder(consumer_config);
  Status ready = reply_producer.start();
  if (ready) ready = responder.subscribe(topic, MessageSelector::by_tag("*"));
  if (ready) {
    ready = responder.register_listener([&](std::span<const MessageExt> requests, ConsumeConcurrentlyContext&) {
      for (const MessageExt& request : requests) {
        auto reply = create_reply_message(request, "reply to " + request.body());
        if (!reply) {
          std::fprintf(stderr, "not a request: %s\n", reply.status().to_string().c_str());
          continue;
        }
        if (auto sent = reply_producer.send(std::move(*reply)); !sent) {
          std::fprintf(stderr, "reply failed: %s\n", sent.status().to_string().c_str());
        }
      }
      return ConsumeConcurrentlyStatus::kConsumeSuccess;
    });
  }
  if (ready) ready = responder.start();

  // The requester.
  ProducerConfig request_config;
  request_config.client = client;
  request_config.group = "example_request_producer";
  Producer requester(request_config);
  if (ready) ready = requester.start();
  if (!ready) {
    std::fprintf(stderr, "start failed: %s\n", ready.to_string().c_str());
    return 1;
  }

  for (int i = 0; i < 3; ++i) {
    // The first request waits longer: the responder may still be finding the new topic.
    auto reply = requester.request(Message(topic, "request " + std::to_string(i)), i == 0 ? 15000ms : 3000ms);
    if (!reply) {
      std::fprintf(stderr, "request %d: %s\n", i, reply.status().to_string().c_str());
      continue;
    }
    std::printf("request %d: %s\n", i, reply->body().c_str());
  }

  // Async: the callback runs on a client thread and must not block.
  std::promise<void> answered;
  Status queued = requester.request_async(
      Message(topic, "async request"),
      [&answered](Result<MessageExt> reply) {
        std::printf("async: %s\n", reply ? reply->body().c_str() : reply.status().to_string().c_str());
        answered.set_value();
      },
      3000ms);
  if (queued) {
    answered.get_future().wait();
  } else {
    std::fprintf(stderr, "async request: %s\n", queued.to_string().c_str());
  }

  requester.shutdown();
  responder.shutdown();
  reply_producer.shutdown();
  return 0;
}
