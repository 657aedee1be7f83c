// Parsing config values from text (command-line overrides and schema defaults) and checking
// them against their ConfigField: one place decides what "1GiB", "30s" or "a,b" mean.
#pragma once

#include <string>
#include <string_view>

#include "mqkit/plugin/v1/config.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::kernel {

using plugin::v1::ConfigField;
using plugin::v1::ConfigValue;
using plugin::v1::Result;
using plugin::v1::Status;
using plugin::v1::ValueType;

// "1GiB" / "512MB" / "64k" / "4096" → bytes. Binary units (KiB..TiB, and K/M/G/T or KB/MB/GB as
// RocketMQ operators write them) are powers of 1024.
Result<std::int64_t> parse_size(std::string_view text);
// "500ms" / "30s" / "2m" / "72h" / "1d" / "1500" (ms) → milliseconds.
Result<std::int64_t> parse_duration_ms(std::string_view text);

// Parses `text` as a value of field.type (no bounds check). Errors say what was expected.
Result<ConfigValue> parse_value_text(const ConfigField& field, std::string_view text);

// Bounds and allowed values. The error names the key and what was expected.
Status check_value(const ConfigField& field, const ConfigValue& value);

// Validates a schema itself: unique non-empty keys, defaults that parse and pass their own
// checks. Run when a plugin is registered, so a plugin with a broken schema is refused.
Status check_schema(const plugin::v1::ConfigSchema& schema);

// "flushDiskType" → "flush_disk_type"; "brokerIP1" → "broker_ip1"; snake_case is unchanged.
std::string to_snake_case(std::string_view key);
// The other way, for answers RocketMQ tools read: "flush_disk_type" → "flushDiskType",
// "broker_ip1" → "brokerIP1" (RocketMQ's spelling); to_snake_case undoes it.
std::string to_camel_case(std::string_view key);

// Smallest edit distance between `key` and the schema keys, for "did you mean" hints.
std::string closest_key(const plugin::v1::ConfigSchema& schema, std::string_view key);

}  // namespace mqkit::kernel
