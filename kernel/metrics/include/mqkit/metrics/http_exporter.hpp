// HttpExporter: the small HTTP/1.1 server Prometheus scrapes. GET (or HEAD) /metrics answers
// 200 with the page `render` builds; any other path is 404, any other method 405. A request
// whose head or body is over the size bound is answered 431 or 413 and its connection closed;
// one that does not parse is answered 400 and closed; a connection idle or slow past the I/O
// timeout is closed. At most `max_connections` are open at once; more are closed at accept.
//
// Threads: one of its own, which accepts, parses and calls `render`. The servers' request
// threads never run any of it, so a slow or hostile scraper cannot hold them up; `render` only
// reads atomics and takes the brief locks the servers' tables already use for admin requests.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::metrics {

struct HttpExporterOptions {
  std::string host = "0.0.0.0";
  std::uint16_t port = 0;                      // 0 = any free port
  std::size_t max_request_bytes = 8 * 1024;    // request line + headers, and body, each
  std::chrono::milliseconds io_timeout{10'000};  // to read one request or write one answer
  std::size_t max_connections = 16;
};

class HttpExporter {
 public:
  using Render = std::function<std::string()>;

  explicit HttpExporter(Render render);
  ~HttpExporter();
  HttpExporter(const HttpExporter&) = delete;
  HttpExporter& operator=(const HttpExporter&) = delete;

  // Listens and starts the thread; returns the bound port. IoError when the address cannot be
  // bound, InvalidArgument when the host does not resolve.
  plugin::v1::Result<std::uint16_t> start(const HttpExporterOptions& options);
  // Closes the listener and every connection and joins the thread. Idempotent.
  void stop() noexcept;

  struct Server;  // opaque: the listener, its thread and its connections

 private:
  Render render_;
  std::unique_ptr<Server> server_;
};

}  // namespace mqkit::metrics
