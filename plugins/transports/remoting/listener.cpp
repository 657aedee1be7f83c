#include "transports/remoting/listener.hpp"

#include <boost/asio/bind_executor.hpp>

#include <string>

#include "transports/remoting/address.hpp"
#include "transports/remoting/connection.hpp"
#include "transports/remoting/exception_text.hpp"

namespace mqkit::plugins::transports::remoting {

namespace asio = boost::asio;
using v1::Result;
using v1::Status;

namespace {
// After a failed accept (out of file descriptors, say) wait before trying again instead of
// spinning on the same error.
constexpr std::chrono::milliseconds kAcceptRetryDelay{100};
}  // namespace

Listener::Listener(std::shared_ptr<Runtime> runtime, std::shared_ptr<v1::RequestHandler> handler)
    : runtime_(std::move(runtime)),
      handler_(std::move(handler)),
      strand_(asio::make_strand(runtime_->io())),
      acceptor_(strand_),
      retry_timer_(strand_) {}

Result<std::uint16_t> Listener::open(const v1::ListenOptions& options) {
  MQKIT_ASSIGN_OR_RETURN(auto endpoints, resolve_host(runtime_->io(), options.host, options.port));
  const auto& endpoint = endpoints.front();
  const auto failed = [&](const char* step, const boost::system::error_code& error) {
    return Status::io_error("cannot listen on " + endpoint_text(endpoint) + ": " + step + ": " + error.message());
  };
  boost::system::error_code error;
  acceptor_.open(endpoint.protocol(), error);
  if (error) return failed("open", error);
  acceptor_.set_option(asio::ip::tcp::acceptor::reuse_address(true), error);
  if (error) return failed("SO_REUSEADDR", error);
  acceptor_.bind(endpoint, error);
  if (error) return failed("bind", error);
  acceptor_.listen(asio::socket_base::max_listen_connections, error);
  if (error) return failed("listen", error);
  const auto bound = acceptor_.local_endpoint(error);
  if (error) return failed("local address", error);
  address_ = endpoint_text(bound);
  runtime_->log().info("listening on " + address_);
  return bound.port();
}

void Listener::start() {
  runtime_->run_on(strand_, [self = shared_from_this()] { self->accept_next(); });
}

void Listener::close() {
  runtime_->run_on(strand_, [self = shared_from_this()] {
    if (self->closed_) return;
    self->closed_ = true;
    boost::system::error_code ignored;
    self->acceptor_.close(ignored);
    self->retry_timer_.cancel();
    self->runtime_->log().info("stopped listening on " + self->address_);
  });
}

void Listener::accept_next() {
  if (closed_) return;
  acceptor_.async_accept(runtime_->io(),
                         asio::bind_executor(strand_, [self = shared_from_this()](const boost::system::error_code& error,
                                                                                  asio::ip::tcp::socket socket) {
                           self->on_accept(error, std::move(socket));
                         }));
}

void Listener::on_accept(const boost::system::error_code& error, asio::ip::tcp::socket socket) {
  if (closed_ || error == asio::error::operation_aborted) return;
  if (error) {
    runtime_->log().warn("accept on " + address_ + " failed: " + error.message() + "; retrying");
    retry_timer_.expires_after(kAcceptRetryDelay);
    retry_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& wait_error) {
      if (!wait_error) self->accept_next();
    });
    return;
  }
  try {
    auto connection = std::make_shared<Connection>(runtime_, std::move(socket), handler_, Connection::Side::kAccepted);
    (void)connection->start();
  } catch (...) {
    runtime_->log().error("accepting a connection on " + address_ + ": " + current_exception_text());
  }
  accept_next();
}

}  // namespace mqkit::plugins::transports::remoting
