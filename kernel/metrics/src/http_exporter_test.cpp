#include "mqkit/metrics/http_exporter.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "loopback_client.hpp"

namespace mqkit::metrics {
namespace {

using namespace std::chrono_literals;

using Client = mqkit::testing::LoopbackClient;

// True when the server closes the connection within the client's timeout without answering.
bool closed_without_answer(Client& client) { return client.read_all().empty(); }

// One request on its own connection; the whole answer.
std::string round_trip(std::uint16_t port, const std::string& request) {
  Client client(port);
  if (!client.connected()) return "<not connected>";
  client.send(request);
  client.finish_sending();
  return client.read_all();
}

std::string status_line(const std::string& response) { return response.substr(0, response.find("\r\n")); }
std::string body_of(const std::string& response) {
  const auto end = response.find("\r\n\r\n");
  return end == std::string::npos ? "" : response.substr(end + 4);
}

class HttpExporterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    HttpExporterOptions options;
    options.host = "127.0.0.1";
    options.port = 0;
    options.max_request_bytes = 1024;
    options.io_timeout = 300ms;
    options.max_connections = 3;
    auto bound = exporter_.start(options);
    ASSERT_TRUE(bound.is_ok()) << bound.status().to_string();
    port_ = *bound;
    ASSERT_NE(port_, 0);
  }

  std::atomic<int> renders_{0};
  HttpExporter exporter_{[this] {
    ++renders_;
    return std::string("# HELP up Up\n# TYPE up gauge\nup 1\n");
  }};
  std::uint16_t port_ = 0;
};

TEST_F(HttpExporterTest, GetMetricsAnswersThePageAsExpositionText) {
  const std::string response = round_trip(port_, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(status_line(response), "HTTP/1.1 200 OK");
  EXPECT_NE(response.find("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"), std::string::npos) << response;
  EXPECT_EQ(body_of(response), "# HELP up Up\n# TYPE up gauge\nup 1\n");
  EXPECT_EQ(renders_.load(), 1);
}

TEST_F(HttpExporterTest, QueryStringIsIgnoredAndHttp10IsServed) {
  EXPECT_EQ(status_line(round_trip(port_, "GET /metrics?name[]=up HTTP/1.1\r\nHost: x\r\n\r\n")), "HTTP/1.1 200 OK");
  EXPECT_EQ(status_line(round_trip(port_, "GET /metrics HTTP/1.0\r\n\r\n")), "HTTP/1.0 200 OK");
}

TEST_F(HttpExporterTest, HeadAnswersTheLengthWithoutABody) {
  const std::string response = round_trip(port_, "HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(status_line(response), "HTTP/1.1 200 OK");
  EXPECT_NE(response.find("Content-Length: 34\r\n"), std::string::npos) << response;
  EXPECT_EQ(body_of(response), "");
}

TEST_F(HttpExporterTest, OtherPathsAre404) {
  for (const char* path : {"/", "/metric", "/metrics/", "/favicon.ico"}) {
    const std::string response = round_trip(port_, std::string("GET ") + path + " HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ(status_line(response), "HTTP/1.1 404 Not Found") << path;
  }
  EXPECT_EQ(renders_.load(), 0);
}

TEST_F(HttpExporterTest, OtherMethodsAre405WithAllow) {
  for (const char* method : {"POST", "PUT", "DELETE", "OPTIONS"}) {
    const std::string response =
        round_trip(port_, std::string(method) + " /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
    EXPECT_EQ(status_line(response), "HTTP/1.1 405 Method Not Allowed") << method;
    EXPECT_NE(response.find("Allow: GET, HEAD\r\n"), std::string::npos) << response;
  }
  EXPECT_EQ(renders_.load(), 0);
}

TEST_F(HttpExporterTest, OversizedHeadIs431AndClosed) {
  const std::string response =
      round_trip(port_, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Padding: " + std::string(4000, 'a') + "\r\n\r\n");
  EXPECT_EQ(status_line(response), "HTTP/1.1 431 Request Header Fields Too Large");
  EXPECT_NE(response.find("Connection: close\r\n"), std::string::npos) << response;
  EXPECT_EQ(renders_.load(), 0);
}

TEST_F(HttpExporterTest, OversizedBodyIs413AndClosed) {
  const std::string response =
      round_trip(port_, "GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" + std::string(3000, 'b'));
  EXPECT_EQ(status_line(response), "HTTP/1.1 413 Payload Too Large");
  EXPECT_EQ(renders_.load(), 0);
}

TEST_F(HttpExporterTest, MalformedRequestsAre400AndTheServerKeepsServing) {
  const std::vector<std::string> malformed{
      "GARBAGE\r\n\r\n",
      "GET /metrics HTTP/9.x\r\n\r\n",
      "GET /metrics HTTP/1.1\r\nNo colon here\r\n\r\n",
      "GET /metrics HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
      std::string("\x00\x01\x02\xff\r\n\r\n", 8),
  };
  for (const std::string& request : malformed) {
    const std::string response = round_trip(port_, request);
    EXPECT_EQ(status_line(response), "HTTP/1.1 400 Bad Request") << request;
  }
  EXPECT_EQ(renders_.load(), 0);
  EXPECT_EQ(status_line(round_trip(port_, "GET /metrics HTTP/1.1\r\n\r\n")), "HTTP/1.1 200 OK");
}

TEST_F(HttpExporterTest, RequestCutShortIs400) {
  EXPECT_EQ(status_line(round_trip(port_, "GET /metr")), "HTTP/1.1 400 Bad Request");
  EXPECT_EQ(status_line(round_trip(port_, "GET /metrics HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc")),
            "HTTP/1.1 400 Bad Request");
  EXPECT_EQ(renders_.load(), 0);
}

TEST_F(HttpExporterTest, SilentClientIsClosedAfterTheTimeout) {
  Client client(port_);
  ASSERT_TRUE(client.connected());
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(closed_without_answer(client));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 4s);  // the server's 300 ms, not the client's 5 s
}

TEST_F(HttpExporterTest, KeepAliveServesRequestsOneAfterAnother) {
  const std::string response = round_trip(port_,
                                        "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
                                        "GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n"
                                        "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  std::size_t oks = 0;
  for (auto at = response.find("HTTP/1.1 200 OK"); at != std::string::npos; at = response.find("HTTP/1.1 200 OK", at + 1)) {
    ++oks;
  }
  EXPECT_EQ(oks, 2u) << response;
  EXPECT_NE(response.find("HTTP/1.1 404 Not Found"), std::string::npos);
  EXPECT_EQ(renders_.load(), 2);
}

TEST_F(HttpExporterTest, ConnectionsOverTheLimitAreClosedAtOnce) {
  std::vector<std::unique_ptr<Client>> idle;
  for (int i = 0; i < 3; ++i) {
    idle.push_back(std::make_unique<Client>(port_));
    ASSERT_TRUE(idle.back()->connected());
  }
  // Let the exporter accept the three before the fourth arrives.
  std::this_thread::sleep_for(100ms);
  Client extra(port_);
  ASSERT_TRUE(extra.connected());  // the kernel accepts; the exporter closes it
  extra.send("GET /metrics HTTP/1.1\r\n\r\n");
  EXPECT_TRUE(closed_without_answer(extra));
}

TEST(HttpExporter, RenderFailureIs500) {
  HttpExporter exporter([]() -> std::string { throw std::runtime_error("boom"); });
  auto port = exporter.start({.host = "127.0.0.1", .port = 0});
  ASSERT_TRUE(port.is_ok()) << port.status().to_string();
  EXPECT_EQ(status_line(round_trip(*port, "GET /metrics HTTP/1.1\r\n\r\n")), "HTTP/1.1 500 Internal Server Error");
}

TEST(HttpExporter, PortInUseIsAnIoErrorNamingTheAddress) {
  HttpExporter first([] { return std::string(); });
  auto port = first.start({.host = "127.0.0.1", .port = 0});
  ASSERT_TRUE(port.is_ok());
  HttpExporter second([] { return std::string(); });
  auto again = second.start({.host = "127.0.0.1", .port = *port});
  ASSERT_FALSE(again.is_ok());
  EXPECT_EQ(again.status().code(), plugin::v1::StatusCode::kIoError);
  EXPECT_NE(again.status().message().find("127.0.0.1:" + std::to_string(*port)), std::string::npos)
      << again.status().message();
}

TEST(HttpExporter, UnresolvableHostIsInvalidArgument) {
  HttpExporter exporter([] { return std::string(); });
  auto port = exporter.start({.host = "no such host.invalid", .port = 0});
  ASSERT_FALSE(port.is_ok());
  EXPECT_EQ(port.status().code(), plugin::v1::StatusCode::kInvalidArgument);
}

TEST(HttpExporter, StopClosesOpenConnectionsAndFreesThePort) {
  auto exporter = std::make_unique<HttpExporter>([] { return std::string("x"); });
  auto port = exporter->start({.host = "127.0.0.1", .port = 0});
  ASSERT_TRUE(port.is_ok());
  Client idle(*port);
  ASSERT_TRUE(idle.connected());
  std::this_thread::sleep_for(50ms);
  exporter->stop();
  EXPECT_TRUE(closed_without_answer(idle));
  exporter.reset();
  HttpExporter again([] { return std::string("y"); });
  EXPECT_TRUE(again.start({.host = "127.0.0.1", .port = *port}).is_ok());
}

}  // namespace
}  // namespace mqkit::metrics
