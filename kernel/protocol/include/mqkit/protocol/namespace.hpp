// Client namespaces (RocketMQ 4.5.1+ ClientConfig#setNamespace, Aliyun ONS instance ids): a client
// with namespace NS names every topic and group NS%name on the wire, so that tenants sharing a
// cluster keep apart under the same names. Retry and dead-letter topics keep their prefix in front:
// %RETRY%NS%group, %DLQ%NS%group. System topics and CID_RMQ_SYS_ groups are shared by everyone and
// never wrapped. These are RocketMQ's NamespaceUtil rules; pure functions, any thread.
#pragma once

#include <string>
#include <string_view>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::protocol {

inline constexpr char kNamespaceSeparator = '%';
// Room a wrapped name needs besides the namespace: the separator and at least one character.
inline constexpr std::size_t kMaxNamespaceLength = 125;

// Non-empty, at most kMaxNamespaceLength characters of [|a-zA-Z0-9_-]: a topic name's characters
// without '%', which separates the namespace from the name (a namespace holding it could not be
// told apart from the name again). InvalidArgument "namespace '...' ..." otherwise.
plugin::v1::Status validate_namespace(std::string_view name_space);

// System topics (is_system_topic) and groups starting with CID_RMQ_SYS_: never wrapped.
bool is_system_resource(std::string_view resource);

// `resource` as a client with `name_space` names it on the wire (wrapNamespace): NS%name, retry
// and DLQ prefixes kept in front. Unchanged when `name_space` or `resource` is empty, for system
// resources, and when it already carries this namespace (so wrapping twice is wrapping once).
std::string wrap_namespace(std::string_view name_space, std::string_view resource);

// True when `resource` (without its retry/DLQ prefix) starts with "NS%".
bool is_already_with_namespace(std::string_view resource, std::string_view name_space);

// `resource` as the client with `name_space` knows it (withoutNamespace(resource, namespace)):
// NS%T -> T, %RETRY%NS%G -> %RETRY%G. Names of another namespace or none stay as they are.
std::string without_namespace(std::string_view resource, std::string_view name_space);

// `resource` without whatever namespace it carries (withoutNamespace(resource)): everything up to
// the first '%' after the retry/DLQ prefix goes. What RocketMQ's message trace records.
std::string without_any_namespace(std::string_view resource);

}  // namespace mqkit::protocol
