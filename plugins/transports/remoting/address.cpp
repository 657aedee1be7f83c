#include "transports/remoting/address.hpp"

#include <charconv>

namespace mqkit::plugins::transports::remoting {

namespace asio = boost::asio;
using v1::Result;
using v1::Status;

std::string endpoint_text(const asio::ip::tcp::endpoint& endpoint) {
  const auto address = endpoint.address();
  const std::string host = address.is_v6() ? "[" + address.to_string() + "]" : address.to_string();
  return host + ":" + std::to_string(endpoint.port());
}

Result<std::vector<asio::ip::tcp::endpoint>> resolve_host(asio::io_context& io, std::string_view host,
                                                          std::uint16_t port) {
  boost::system::error_code error;
  const auto literal = asio::ip::make_address(std::string(host), error);
  if (!error) return std::vector<asio::ip::tcp::endpoint>{{literal, port}};
  asio::ip::tcp::resolver resolver(io);
  const auto results = resolver.resolve(std::string(host), std::to_string(port),
                                        asio::ip::resolver_base::numeric_service, error);
  if (error || results.empty()) {
    return Status::unavailable("cannot resolve host '" + std::string(host) + "': " +
                               (error ? error.message() : std::string("no addresses")));
  }
  std::vector<asio::ip::tcp::endpoint> endpoints;
  for (const auto& entry : results) endpoints.push_back(entry.endpoint());
  return endpoints;
}

Result<std::vector<asio::ip::tcp::endpoint>> resolve_address(asio::io_context& io, std::string_view address) {
  const auto invalid = [&] {
    return Status::invalid_argument("address '" + std::string(address) + "' is not host:port");
  };
  const std::size_t colon = address.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return invalid();
  std::string_view host = address.substr(0, colon);
  const std::string_view port_text = address.substr(colon + 1);
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') return invalid();
    host = host.substr(1, host.size() - 2);
  }
  std::uint16_t port = 0;
  const char* end = port_text.data() + port_text.size();
  auto [ptr, ec] = std::from_chars(port_text.data(), end, port);
  if (ec != std::errc() || ptr != end || port == 0) return invalid();
  return resolve_host(io, host, port);
}

}  // namespace mqkit::plugins::transports::remoting
