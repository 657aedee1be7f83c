// A running component's configuration as RocketMQ's admin requests see it: GET_BROKER_CONFIG and
// GET_NAMESRV_CONFIG list every setting as a flat camelCase map, UPDATE_BROKER_CONFIG and
// UPDATE_NAMESRV_CONFIG change the settings a schema marks live (needs_restart = false).
//
// Pure functions; any thread.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mqkit/plugin/v1/config.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::kernel {

// Every value of `values` under its RocketMQ spelling (flush_disk_type → flushDiskType) as text:
// durations in milliseconds and sizes in bytes, as RocketMQ's own keys hold them.
std::map<std::string, std::string> camel_case_properties(const plugin::v1::ConfigValues& values);

// Checks an update request (`properties`, camelCase or snake_case keys, values as text) against
// `schema` and returns the parsed values by schema key, ready to apply. All or nothing: a key the
// schema lacks, or a value that does not parse or is out of bounds, is InvalidArgument; a key that
// needs a restart is PermissionDenied, saying to set it in `config_file` and restart `owner`.
plugin::v1::Result<std::vector<std::pair<std::string, plugin::v1::ConfigValue>>> checked_live_updates(
    const plugin::v1::ConfigSchema& schema, const std::map<std::string, std::string>& properties,
    std::string_view owner, std::string_view config_file);

}  // namespace mqkit::kernel
