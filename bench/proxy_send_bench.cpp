// proxy_send_bench: RocketMQ 5 gRPC sends through mqproxy, the cost of the proxy hop measured
// against the same sends straight to the broker (mqbench --mode sync, same threads and sizes).
//
//   proxy_send_bench --proxy HOST:PORT --topic T [--threads N] [--messages M] [--size BYTES]
//
// Each thread sends one message at a time with a blocking SendMessage, as a RocketMQ 5 client's
// synchronous send does. Prints msg/s, MB/s, the mean send time and the refusals.
#include <grpcpp/grpcpp.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "apache/rocketmq/v2/service.grpc.pb.h"

namespace v2 = apache::rocketmq::v2;

int main(int argc, char** argv) {
  CLI::App app{"RocketMQ 5 gRPC sends through mqproxy"};
  std::string proxy;
  std::string topic;
  int threads = 8;
  long messages = 100'000;
  int size = 1024;
  app.add_option("--proxy", proxy, "mqproxy host:port")->required();
  app.add_option("--topic", topic, "an existing topic")->required();
  app.add_option("--threads", threads, "sending threads")->check(CLI::Range(1, 256));
  app.add_option("--messages", messages, "messages in all")->check(CLI::PositiveNumber);
  app.add_option("--size", size, "body bytes")->check(CLI::Range(1, 4 * 1024 * 1024));
  CLI11_PARSE(app, argc, argv);

  auto channel = grpc::CreateChannel(proxy, grpc::InsecureChannelCredentials());
  std::atomic<long> next{0};
  std::atomic<long> failed{0};
  std::atomic<long> busy_ns{0};
  const std::string body(static_cast<std::size_t>(size), 'x');
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      auto stub = v2::MessagingService::NewStub(channel);
      v2::SendMessageRequest request;
      auto& message = *request.add_messages();
      message.mutable_topic()->set_name(topic);
      message.set_body(body);
      message.mutable_system_properties()->set_message_type(v2::NORMAL);
      char id[40];
      for (long n = next++; n < messages; n = next++) {
        std::snprintf(id, sizeof id, "0A0000010000%04X%016lX", t, n);
        message.mutable_system_properties()->set_message_id(id);
        grpc::ClientContext context;
        context.AddMetadata("x-mq-client-id", "proxy-send-bench");
        context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
        v2::SendMessageResponse response;
        const auto sent_at = std::chrono::steady_clock::now();
        const grpc::Status status = stub->SendMessage(&context, request, &response);
        busy_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - sent_at).count();
        if (!status.ok() || response.status().code() != v2::OK) {
          // The first few refusals say why; the count says how many.
          if (failed.fetch_add(1) < 3) {
            std::fprintf(stderr, "send %ld failed: %s\n", n,
                         status.ok() ? (v2::Code_Name(response.status().code()) + " " + response.status().message()).c_str()
                                     : ("gRPC " + std::to_string(status.error_code()) + " " + status.error_message()).c_str());
          }
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double rate = static_cast<double>(messages) / seconds;
  std::printf("proxy_send_bench: %ld messages of %d B, %d threads: %.0f msg/s, %.1f MB/s, mean send %.0f us, failed %ld\n",
              messages, size, threads, rate, rate * size / 1e6, static_cast<double>(busy_ns) / messages / 1e3,
              failed.load());
  return failed == 0 ? 0 : 1;
}
