// Addresses as RocketMQ writes them: "host:port", with IPv6 hosts in brackets.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::plugins::transports::remoting {

namespace v1 = ::mqkit::plugin::v1;

std::string endpoint_text(const boost::asio::ip::tcp::endpoint& endpoint);

// Resolves on the calling thread. Unavailable when the host does not resolve.
v1::Result<std::vector<boost::asio::ip::tcp::endpoint>> resolve_host(boost::asio::io_context& io,
                                                                     std::string_view host, std::uint16_t port);
// "host:port" or "[v6]:port"; InvalidArgument when the text is not of that form.
v1::Result<std::vector<boost::asio::ip::tcp::endpoint>> resolve_address(boost::asio::io_context& io,
                                                                        std::string_view address);

}  // namespace mqkit::plugins::transports::remoting
