// The plugin entry: manifest, aliases and configuration schema of the remoting transport.
#include "mqkit/plugin/v1/define_plugin.hpp"
#include "transports/remoting/options.hpp"
#include "transports/remoting/remoting_transport.hpp"

namespace mqkit::plugins::transports::remoting {
namespace {
constexpr const char* kAliases[] = {"rocketmq_remoting", "netty", nullptr};
}  // namespace
}  // namespace mqkit::plugins::transports::remoting

MQKIT_PLUGIN(Transport, mqkit::plugins::transports::remoting::RemotingTransport, "remoting",
             mqkit::plugins::transports::remoting::kAliases, "1.0.0",
             "RocketMQ 4.x remoting protocol over TCP (JSON and ROCKETMQ headers), server and client",
             mqkit::plugins::transports::remoting::config_schema())
