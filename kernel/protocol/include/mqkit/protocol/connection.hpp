// The connection lists of a group as a broker reports them to admin tools: ConsumerConnection
// (GET_CONSUMER_CONNECTION_LIST) and ProducerConnection (GET_PRODUCER_CONNECTION_LIST). Written
// as fastjson writes them (keys in alphabetical order) so Java admin tools read them; shared by
// the broker and mqadmin.
//
// Pure functions; any thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/plugin/v1/status.hpp"
#include "mqkit/protocol/bodies.hpp"

namespace mqkit::protocol {

// One client connection of the group (RocketMQ's Connection).
struct Connection {
  std::string client_id{};
  std::string client_addr{};  // "ip:port" as the broker sees the peer
  std::string language{};     // LanguageCode name: JAVA, CPP, GO, ...; kept as sent, so any name decodes
  std::int32_t version = 0;   // MQVersion ordinal (see version_desc)
  bool operator==(const Connection&) const = default;
};

struct ConsumerConnection {
  std::vector<Connection> connection_set{};
  std::map<std::string, SubscriptionData> subscription_table{};  // by topic
  std::string consume_type{};        // CONSUME_PASSIVELY / CONSUME_ACTIVELY / CONSUME_POP
  std::string message_model{};       // CLUSTERING / BROADCASTING
  std::string consume_from_where{};  // CONSUME_FROM_LAST_OFFSET / ...
};

struct ProducerConnection {
  std::vector<Connection> connection_set{};
};

// Every producer a broker knows, by group (GET_ALL_PRODUCER_INFO's ProducerTableInfo).
struct ProducerInfo {
  std::string client_id{};
  std::string remote_ip{};  // "ip:port" as the broker sees the peer
  std::string language{};
  std::int32_t version = 0;
  std::int64_t last_update_timestamp = 0;  // ms of its last heartbeat
  bool operator==(const ProducerInfo&) const = default;
};
struct ProducerTableInfo {
  std::map<std::string, std::vector<ProducerInfo>> data{};
  bool operator==(const ProducerTableInfo&) const = default;
};
// RocketMQ's ProducerInfo.toString, which mqadmin producer prints.
std::string to_string(const ProducerInfo& producer);

// Decoders read what Java brokers send: fields in any order, missing fields left empty, numbers
// as strings; a connection set or subscription table of the wrong shape is an error.
std::string encode(const ConsumerConnection& c);
std::string encode(const ProducerConnection& p);
plugin::v1::Result<ConsumerConnection> decode_consumer_connection(std::string_view json);
plugin::v1::Result<ProducerConnection> decode_producer_connection(std::string_view json);
std::string encode(const ProducerTableInfo& table);
plugin::v1::Result<ProducerTableInfo> decode_producer_table_info(std::string_view json);

// RocketMQ's name of a client version ordinal (MQVersion.getVersionDesc): 401 → "V4_9_4". An
// ordinal past the last known version is named after the last one, as RocketMQ does; a negative
// one is returned as its number.
std::string version_desc(std::int32_t version);

}  // namespace mqkit::protocol
