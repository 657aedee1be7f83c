#include "mqkit/metrics/http_exporter.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <exception>
#include <optional>
#include <thread>

#include "mqkit/kernel/logging.hpp"
#include "mqkit/metrics/exposition.hpp"
#include "mqkit/plugin/v1/thread_name.hpp"

namespace mqkit::metrics {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using plugin::v1::Result;
using plugin::v1::Status;

namespace {

constexpr std::string_view kMetricsPath = "/metrics";

std::string_view path_of(std::string_view target) { return target.substr(0, target.find('?')); }

}  // namespace

struct HttpExporter::Server {
  Server(const Render& render_page, HttpExporterOptions opts) : render(render_page), options(std::move(opts)) {}

  void accept();

  // Declared before the io_context: connections still queued in it are destroyed with it and
  // count themselves out here.
  const Render& render;
  const HttpExporterOptions options;
  std::size_t open_connections = 0;  // io thread only
  asio::io_context io{1};
  tcp::acceptor acceptor{io};
  asio::steady_timer accept_retry{io};
  std::thread thread;
};

namespace {

// One client connection: reads requests one after another (keep-alive) and answers each.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, HttpExporter::Server& server) : stream_(std::move(socket)), server_(server) {
    ++server_.open_connections;
  }
  ~Connection() { --server_.open_connections; }

  void read() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(server_.options.max_request_bytes));
    parser_->body_limit(server_.options.max_request_bytes);
    stream_.expires_after(server_.options.io_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }

 private:
  void on_read(beast::error_code ec) {
    if (ec == http::error::header_limit || ec == http::error::buffer_overflow) {
      return answer(http::status::request_header_fields_too_large, "request head too large\n", 11, false, false);
    }
    if (ec == http::error::body_limit) {
      return answer(http::status::payload_too_large, "request body too large\n", 11, false, false);
    }
    if (ec == http::error::end_of_stream || ec == beast::error::timeout) return close();
    if (ec && ec.category() == http::make_error_code(http::error::bad_method).category()) {
      return answer(http::status::bad_request, "malformed request: " + ec.message() + "\n", 11, false, false);
    }
    if (ec) return close();

    const auto& request = parser_->get();
    const unsigned version = request.version();
    const bool keep_alive = request.keep_alive();
    const bool head = request.method() == http::verb::head;
    if (request.method() != http::verb::get && !head) {
      return answer(http::status::method_not_allowed, "only GET and HEAD are served\n", version, keep_alive, false);
    }
    const auto target = request.target();
    if (path_of(std::string_view(target.data(), target.size())) != kMetricsPath) {
      return answer(http::status::not_found, "not found: metrics are at /metrics\n", version, keep_alive, head);
    }
    std::string page;
    try {
      page = server_.render();
    } catch (const std::exception& e) {
      kernel::logger("metrics")->error("rendering the metrics page failed: {}", e.what());
      return answer(http::status::internal_server_error, "the metrics page could not be built\n", version, false,
                    head);
    }
    answer(http::status::ok, std::move(page), version, keep_alive, head, kExpositionContentType);
  }

  void answer(http::status status, std::string body, unsigned version, bool keep_alive, bool head,
              std::string_view content_type = "text/plain; charset=utf-8") {
    auto response = std::make_shared<http::response<http::string_body>>(status, version);
    response->set(http::field::server, "mqkit");
    response->set(http::field::content_type, beast::string_view(content_type.data(), content_type.size()));
    if (status == http::status::method_not_allowed) response->set(http::field::allow, "GET, HEAD");
    response->keep_alive(keep_alive);
    response->content_length(body.size());
    // HEAD: the length a GET would get, and no body.
    if (!head) response->body() = std::move(body);
    stream_.expires_after(server_.options.io_timeout);
    http::async_write(stream_, *response,
                      [self = shared_from_this(), response, keep_alive](beast::error_code ec, std::size_t) {
                        if (ec || !keep_alive) return self->close();
                        self->read();
                      });
  }

  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

  beast::tcp_stream stream_;
  HttpExporter::Server& server_;
  // Room for one bounded head plus one bounded body; more is buffer_overflow, answered 431.
  beast::flat_buffer buffer_{2 * server_.options.max_request_bytes + 1024};
  std::optional<http::request_parser<http::string_body>> parser_;
};

}  // namespace

void HttpExporter::Server::accept() {
  acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (ec) {
      // Out of descriptors, say: try again shortly rather than spin.
      kernel::logger("metrics")->warn("metrics exporter cannot accept a connection: {}", ec.message());
      accept_retry.expires_after(std::chrono::milliseconds(200));
      accept_retry.async_wait([this](beast::error_code timer) {
        if (!timer) accept();
      });
      return;
    }
    if (open_connections >= options.max_connections) {
      beast::error_code ignored;
      socket.close(ignored);
    } else {
      std::make_shared<Connection>(std::move(socket), *this)->read();
    }
    accept();
  });
}

HttpExporter::HttpExporter(Render render) : render_(std::move(render)) {}

HttpExporter::~HttpExporter() { stop(); }

Result<std::uint16_t> HttpExporter::start(const HttpExporterOptions& options) {
  stop();
  auto server = std::make_unique<Server>(render_, options);
  const std::string where = options.host + ":" + std::to_string(options.port);
  beast::error_code ec;
  asio::ip::address address = asio::ip::make_address(options.host, ec);
  if (ec) {
    tcp::resolver resolver(server->io);
    const auto found = resolver.resolve(options.host, std::to_string(options.port), ec);
    if (ec || found.empty()) {
      return Status::invalid_argument("metrics exporter host \"" + options.host + "\" does not resolve: " + ec.message());
    }
    address = found.begin()->endpoint().address();
  }
  const tcp::endpoint endpoint(address, options.port);
  auto& acceptor = server->acceptor;
  if (acceptor.open(endpoint.protocol(), ec); !ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return Status::io_error("metrics exporter cannot listen on " + where + ": " + ec.message());
  const std::uint16_t port = acceptor.local_endpoint(ec).port();
  if (ec) return Status::io_error("metrics exporter cannot read its port: " + ec.message());
  server->accept();
  server->thread = std::thread([s = server.get()] {
    plugin::v1::name_this_thread("MetricsExporter");
    // Handlers do not throw; should one, the exporter keeps serving rather than die.
    while (true) {
      try {
        s->io.run();
        return;
      } catch (const std::exception& e) {
        kernel::logger("metrics")->error("metrics exporter: {}", e.what());
      }
    }
  });
  server_ = std::move(server);
  return port;
}

void HttpExporter::stop() noexcept {
  if (!server_) return;
  server_->io.stop();
  if (server_->thread.joinable()) server_->thread.join();
  beast::error_code ignored;
  server_->acceptor.close(ignored);
  server_.reset();
}

}  // namespace mqkit::metrics
