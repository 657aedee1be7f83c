// ConfigDocument: one TOML configuration file (etc/broker.toml, etc/namesrv.toml,
// etc/client.toml) plus command-line overrides, validated section by section against the
// schemas that components and plugins declare.
//
// Layout: every key lives in a section (a TOML table, possibly nested: [consumer.allocator]).
// A plugin slot is a section with a `plugin = "<name or alias>"` key; the slot's other keys
// belong to that plugin's schema. Keys are snake_case; RocketMQ's camelCase spelling of the
// same key is accepted (flushDiskType == flush_disk_type). Errors name file:line:column.
//
// Not thread-safe: configuration is read once, at start-up, on one thread.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/plugin/v1/config.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::kernel {

using plugin::v1::ConfigSchema;
using plugin::v1::ConfigValues;
using plugin::v1::Result;
using plugin::v1::Status;

class ConfigDocument {
 public:
  // Reads and parses a TOML file. A missing file or a syntax error is an error naming the file
  // (and line:column for syntax errors).
  static Result<ConfigDocument> load_file(const std::filesystem::path& path);
  // Parses TOML text; `source_name` stands for the file name in messages.
  static Result<ConfigDocument> parse(std::string_view toml_text, std::string source_name);

  ConfigDocument(ConfigDocument&&) noexcept;
  ConfigDocument& operator=(ConfigDocument&&) noexcept;
  ~ConfigDocument();

  // Records a "section.key=value" override (from --set). The section may be dotted
  // ("consumer.allocator.virtual_nodes=20"). Applied when that section is validated.
  Status add_override(std::string_view assignment);

  // Validates section `path` (missing table = all defaults) against `schema`: unknown keys,
  // wrong types, out-of-range and disallowed values are errors; keys named in `skip_keys` and
  // nested tables (validated as their own sections) are ignored. Returns every schema key.
  // The empty path is the top level of the file (for files without sections, such as an ACL file).
  Result<ConfigValues> section(std::string_view path, const ConfigSchema& schema,
                               std::span<const std::string_view> skip_keys = {}) const;

  // Validates every table of the array of tables `path` ([[path]] in the file) against `schema`,
  // as section() does; an absent array is empty. Not subject to --set overrides.
  Result<std::vector<ConfigValues>> table_array(std::string_view path, const ConfigSchema& schema) const;

  // The `plugin` key of a plugin slot (override included); nullopt when the slot is absent.
  Result<std::optional<std::string>> plugin_name(std::string_view path) const;

  // Validates a plugin slot against the chosen plugin's schema (the `plugin` key is skipped).
  Result<ConfigValues> plugin_section(std::string_view path, const ConfigSchema& schema) const;

  // After all sections were validated: any table never asked for, and any override never
  // applied, is an error ("unknown section [consumr]").
  Status check_all_consumed() const;

  // "<file>:<line>:<column>" of a key, or the file name when the key is not in the file.
  std::string location_of(std::string_view path, std::string_view key) const;
  // The same for a key of table `index` (0-based) of the array of tables `path`; the table's own
  // position when the key is not in it.
  std::string location_of(std::string_view path, std::size_t index, std::string_view key) const;

  const std::string& source_name() const noexcept;
  // Directory of the file, for resolving relative paths in values; empty for parsed text.
  const std::filesystem::path& base_directory() const noexcept;

  // Renders validated values as a TOML table with each key's description as a comment.
  static std::string render(std::string_view path, const ConfigSchema& schema, const ConfigValues& values);
  // The same keys without the table header: the top level of a file, or after "[[path]]".
  static std::string render_keys(const ConfigSchema& schema, const ConfigValues& values);

 private:
  struct Impl;
  explicit ConfigDocument(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mqkit::kernel
