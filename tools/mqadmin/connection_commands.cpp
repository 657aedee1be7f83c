// Connections: consumerConnection and producerConnection show the clients of a group that a
// broker has connections from (GET_CONSUMER_CONNECTION_LIST, GET_PRODUCER_CONNECTION_LIST), in
// the layout of RocketMQ's ConsumerConnectionSubCommand and ProducerConnectionSubCommand; --json
// prints the broker's body (protocol/connection.hpp) as it is.
#include <fmt/format.h>

#include <iostream>

#include "admin.hpp"
#include "mqkit/protocol/connection.hpp"

namespace mqkit::admin {

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
  // RocketMQ pads these columns to fixed widths (printf), whatever the data; so does mqkit, so that
  // what reads RocketMQ's output reads this too.
  out << fmt::format("{:<36} {:<22} {:<10} {}\n", "#ClientId", "#ClientAddr", "#Language", "#Version");
  for (const auto& c : connection->connection_set) {
    out << fmt::format("{:<36} {:<22} {:<10} {}\n", c.client_id, c.client_addr, c.language,
                       protocol::version_desc(c.version));
  }
  out << "\nBelow is subscription:\n";
  out << fmt::format("{:<20} {}\n", "#Topic", "#SubExpression");
  for (const auto& [topic, s] : connection->subscription_table) {
    out << fmt::format("{:<20} {}\n", s.topic, s.sub_string);
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
    *ctx.out << fmt::format("{:04d}  {:<32} {:<22} {:<8} {}\n", ++index, c.client_id, c.client_addr, c.language,
                            protocol::version_desc(c.version));
  }
  return 0;
}

int all_producers(AdminContext& ctx, const std::string& broker_addr) {
  auto table = ctx.api().get_all_producer_info(broker_addr);
  if (!table) return ctx.fail("producer " + broker_addr, table.status());
  if (ctx.json) {
    *ctx.out << protocol::encode(*table) << "\n";
    return 0;
  }
  for (const auto& [group, producers] : table->data) {
    if (producers.empty()) *ctx.out << "producer group (" << group << ") instances are empty\n";
    for (const auto& p : producers) *ctx.out << "producer group (" << group << ") instance : " << protocol::to_string(p) << "\n";
  }
  return 0;
}

}  // namespace mqkit::admin
