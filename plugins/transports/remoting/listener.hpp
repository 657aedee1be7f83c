// Listener: one listening socket. Accepts on its own strand and hands every accepted socket to a
// new server-side Connection.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <memory>

#include "mqkit/plugin/v1/transport.hpp"
#include "transports/remoting/runtime.hpp"

namespace mqkit::plugins::transports::remoting {

class Listener : public std::enable_shared_from_this<Listener> {
 public:
  Listener(std::shared_ptr<Runtime> runtime, std::shared_ptr<v1::RequestHandler> handler);

  // Binds and listens; the bound port. Call once, before start().
  v1::Result<std::uint16_t> open(const v1::ListenOptions& options);
  void start();
  // Stops accepting (asynchronously, on the listener's strand).
  void close();

 private:
  void accept_next();
  void on_accept(const boost::system::error_code& error, boost::asio::ip::tcp::socket socket);

  const std::shared_ptr<Runtime> runtime_;
  const std::shared_ptr<v1::RequestHandler> handler_;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer retry_timer_;
  std::string address_;
  bool closed_ = false;  // strand-owned
};

}  // namespace mqkit::plugins::transports::remoting
