// Connections: consumerConnection and producerConnection show the clients of a group that a
// broker has connections from (GET_CONSUMER_CONNECTION_LIST, GET_PRODUCER_CONNECTION_LIST), in
// the layout of RocketMQ's ConsumerConnectionSubCommand and ProducerConnectionSubCommand; --json
// prints the broker's body (protocol/connection.hpp) as it is.
#include <cstdarg>
#include <cstdio>
#include <iostream>

#include "admin.hpp"
#include "mqkit/protocol/connection.hpp"

namespace mqkit::admin {
namespace {

// RocketMQ pads these columns to fixed widths (printf), whatever the data; so does mqkit, so that
// what reads RocketMQ's output reads this too.
[[gnu::format(printf, 2, 3)]] void print_line(std::ostream& out, const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  std::va_list size_args;
  va_copy(size_args, args);
  const int size = std::vsnprintf(nullptr, 0, format, size_args);
  va_end(size_args);
  std::string line(static_cast<std::size_t>(size > 0 ? size : 0) + 1, '\0');
  std::vsnprintf(line.data(), line.size(), format, args);
  va_end(args);
  line.pop_back();
  out << line << "\n";
}

}  // namespace

int consumer_connection(AdminContext& ctx, const std::string& group, const std::string& broker_addr) {
  const std::string what = "consumerConnection " + group;
  std::string address = broker_addr;
  if (address.empty()) {
    auto broker = group_broker(ctx, group);
    if (!broker) return ctx.fail(what, broker.status());
    address = std::move(broker).value();
  }
  auto connection = ctx.api().get_consumer_connection_list(address, group);
  if (!connection) return ctx.fail(what + " on " + address, connection.status());
  if (connection->connection_set.empty()) {
    return ctx.fail(what + ": no consumer of the group is connected to " + address);
  }
  if (ctx.json) {
    *ctx.out << protocol::encode(*connection) << "\n";
    return 0;
  }
  auto& out = *ctx.out;
  print_line(out, "%-36s %-22s %-10s %s", "#ClientId", "#ClientAddr", "#Language", "#Version");
  for (const auto& c : connection->connection_set) {
    print_line(out, "%-36s %-22s %-10s %s", c.client_id.c_str(), c.client_addr.c_str(), c.language.c_str(),
               protocol::version_desc(c.version).c_str());
  }
  out << "\nBelow is subscription:\n";
  print_line(out, "%-20s %s", "#Topic", "#SubExpression");
  for (const auto& [topic, s] : connection->subscription_table) {
    print_line(out, "%-20s %s", s.topic.c_str(), s.sub_string.c_str());
  }
  out << "\n";
  out << "ConsumeType: " << connection->consume_type << "\n";
  out << "MessageModel: " << connection->message_model << "\n";
  out << "ConsumeFromWhere: " << connection->consume_from_where << "\n";
  return 0;
}

int producer_connection(AdminContext& ctx, const std::string& group, const std::string& topic) {
  const std::string what = "producerConnection " + group;
  // Producers send heartbeats to every broker of the topics they publish to, so any master of the
  // topic knows them (RocketMQ asks one at random).
  auto masters = topic_masters(ctx, topic);
  if (!masters) return ctx.fail(what + ": topic " + topic, masters.status());
  const auto& [broker_name, address] = masters->front();
  // A broker that has no producer of the group answers "the producer group[..] not exist".
  auto connection = ctx.api().get_producer_connection_list(address, group);
  if (!connection) return ctx.fail(what + " on " + broker_name, connection.status());
  if (connection->connection_set.empty()) {
    return ctx.fail(what + ": no producer of the group is connected to " + broker_name + " (" + address + ")");
  }
  if (ctx.json) {
    *ctx.out << protocol::encode(*connection) << "\n";
    return 0;
  }
  int index = 0;
  for (const auto& c : connection->connection_set) {
    print_line(*ctx.out, "%04d  %-32s %-22s %-8s %s", ++index, c.client_id.c_str(), c.client_addr.c_str(),
               c.language.c_str(), protocol::version_desc(c.version).c_str());
  }
  return 0;
}

}  // namespace mqkit::admin
