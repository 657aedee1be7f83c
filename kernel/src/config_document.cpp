#include "mqkit/kernel/config_document.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "mqkit/kernel/config_value.hpp"

namespace mqkit::kernel {

using plugin::v1::ConfigField;
using plugin::v1::ConfigValue;
using plugin::v1::ValueType;

namespace {

constexpr std::string_view kPluginKey = "plugin";

struct Override {
  std::string section;
  std::string key;  // snake_case
  std::string text;
  mutable bool consumed = false;
};

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default: out += c;
    }
  }
  return out + "\"";
}

std::string render_value(const ConfigField& field, const ConfigValue& value) {
  if (field.type == ValueType::kString) return quote(std::get<std::string>(value));
  if (field.type == ValueType::kStringList) {
    std::string out = "[";
    const auto& list = std::get<std::vector<std::string>>(value);
    for (std::size_t i = 0; i < list.size(); ++i) out += (i ? ", " : "") + quote(list[i]);
    return out + "]";
  }
  return plugin::v1::format_value(value);
}

std::string_view type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date:
    case toml::node_type::time:
    case toml::node_type::date_time: return "a date/time";
    case toml::node_type::none: break;
  }
  return "nothing";
}

}  // namespace

struct ConfigDocument::Impl {
  toml::table root;
  std::string source_name;
  std::filesystem::path base_directory;
  std::vector<Override> overrides;
  mutable std::set<std::string, std::less<>> visited_sections;

  std::string position(const toml::source_region& region) const {
    if (region.begin.line == 0) return source_name;
    return source_name + ":" + std::to_string(region.begin.line) + ":" + std::to_string(region.begin.column);
  }

  // The table at a dotted path, or nullptr. A non-table at that path is an error.
  Result<const toml::table*> table_at(std::string_view path) const {
    const toml::table* table = &root;
    std::string_view rest = path;
    while (!rest.empty()) {
      const auto dot = rest.find('.');
      const std::string_view part = rest.substr(0, dot);
      const toml::node* node = table->get(part);
      if (node == nullptr) return static_cast<const toml::table*>(nullptr);
      if (!node->is_table()) {
        return Status::invalid_argument(position(node->source()) + ": [" + std::string(path) +
                                        "] must be a table, found a value");
      }
      table = node->as_table();
      rest = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
    }
    return table;
  }

  // The array of tables at a dotted path ([[path]] in the file), or nullptr when absent.
  Result<const toml::node*> array_at(std::string_view path) const {
    const auto dot = path.rfind('.');
    MQKIT_ASSIGN_OR_RETURN(const toml::table* parent,
                           table_at(dot == std::string_view::npos ? std::string_view() : path.substr(0, dot)));
    if (parent == nullptr) return static_cast<const toml::node*>(nullptr);
    const toml::node* node = parent->get(dot == std::string_view::npos ? path : path.substr(dot + 1));
    if (node != nullptr && !node->is_array()) {
      return Status::invalid_argument(position(node->source()) + ": " + std::string(path) +
                                      " must be an array of tables ([[" + std::string(path) + "]]), found " +
                                      std::string(type_name(*node)));
    }
    return node;
  }

  // The keys of `table` checked against `schema` (nested tables and `skip_keys` left out);
  // `label` names the table in messages ("[broker] ", "" for the top level).
  Result<std::map<std::string, ConfigValue, std::less<>>> table_values(const toml::table& table,
                                                                       const std::string& label,
                                                                       const ConfigSchema& schema,
                                                                       std::span<const std::string_view> skip_keys) const {
    std::map<std::string, ConfigValue, std::less<>> given;
    std::map<std::string, std::string, std::less<>> spelled_as;
    for (const auto& [raw_key, node] : table) {
      const std::string_view key_text = raw_key.str();
      if (node.is_table()) continue;  // a nested section, validated by its own call
      const std::string key = to_snake_case(key_text);
      if (std::find(skip_keys.begin(), skip_keys.end(), key) != skip_keys.end()) continue;
      const std::string where = position(raw_key.source()) + ": " + label;
      const ConfigField* field = schema.find(key);
      if (field == nullptr) {
        std::string message = where + "unknown key '" + std::string(key_text) + "'";
        const std::string hint = closest_key(schema, key);
        if (!hint.empty()) message += " (did you mean '" + hint + "'?)";
        return Status::invalid_argument(message);
      }
      if (auto [it, inserted] = spelled_as.emplace(key, std::string(key_text)); !inserted) {
        return Status::invalid_argument(where + "key '" + key + "' is given twice (as '" + it->second + "' and '" +
                                        std::string(key_text) + "')");
      }
      MQKIT_ASSIGN_OR_RETURN(ConfigValue value, convert(*field, node, label));
      if (Status s = check_value(*field, value); !s) return Status::invalid_argument(where + s.message());
      given[key] = std::move(value);
    }
    return given;
  }

  // Every schema key: the given value, else the default; a required key missing is an error.
  Result<ConfigValues> with_defaults(std::map<std::string, ConfigValue, std::less<>> given, const std::string& label,
                                     const ConfigSchema& schema) const {
    ConfigValues values;
    for (const auto& field : schema) {
      if (auto it = given.find(field.key); it != given.end()) {
        values.set(field.key, it->second);
        continue;
      }
      if (field.default_value == nullptr) {
        return Status::invalid_argument(source_name + ": " + label + "required key '" + field.key + "' is missing (" +
                                        field.description + ")");
      }
      auto value = parse_value_text(field, field.default_value);
      if (!value) return value.status().with_context("invalid schema default");
      values.set(field.key, std::move(value).value());
    }
    return values;
  }

  Result<ConfigValue> convert(const ConfigField& field, const toml::node& node, const std::string& label) const {
    const std::string where = position(node.source()) + ": " + label;
    const auto wrong_type = [&](std::string_view expected) {
      return Status::invalid_argument(where + field.key + ": expected " + std::string(expected) + ", found " +
                                      std::string(type_name(node)));
    };
    switch (field.type) {
      case ValueType::kBool:
        if (!node.is_boolean()) return wrong_type("true or false");
        return ConfigValue(node.as_boolean()->get());
      case ValueType::kInt:
        if (!node.is_integer()) return wrong_type("an integer");
        return ConfigValue(node.as_integer()->get());
      case ValueType::kDouble:
        if (node.is_integer()) return ConfigValue(static_cast<double>(node.as_integer()->get()));
        if (!node.is_floating_point()) return wrong_type("a number");
        return ConfigValue(node.as_floating_point()->get());
      case ValueType::kString:
        if (!node.is_string()) return wrong_type("a string");
        return ConfigValue(node.as_string()->get());
      case ValueType::kStringList: {
        if (!node.is_array()) return wrong_type("an array of strings");
        std::vector<std::string> items;
        for (const auto& item : *node.as_array()) {
          if (!item.is_string()) {
            return Status::invalid_argument(position(item.source()) + ": " + label + field.key +
                                            ": expected an array of strings");
          }
          items.push_back(item.as_string()->get());
        }
        return ConfigValue(std::move(items));
      }
      case ValueType::kSize:
      case ValueType::kDuration: {
        if (node.is_integer()) return ConfigValue(node.as_integer()->get());
        if (!node.is_string()) {
          return wrong_type(field.type == ValueType::kSize ? "a size (integer bytes or \"1GiB\")"
                                                           : "a duration (integer ms or \"30s\")");
        }
        auto parsed = parse_value_text(field, node.as_string()->get());
        if (!parsed) return Status::invalid_argument(where + parsed.status().message());
        return parsed;
      }
    }
    return wrong_type("a value");
  }
};

ConfigDocument::ConfigDocument(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ConfigDocument::ConfigDocument(ConfigDocument&&) noexcept = default;
ConfigDocument& ConfigDocument::operator=(ConfigDocument&&) noexcept = default;
ConfigDocument::~ConfigDocument() = default;

Result<ConfigDocument> ConfigDocument::load_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::not_found("cannot open config file " + path.string() + ": " + std::strerror(errno));
  }
  std::stringstream text;
  text << in.rdbuf();
  auto doc = parse(text.str(), path.string());
  if (doc) doc->impl_->base_directory = std::filesystem::absolute(path).parent_path();
  return doc;
}

Result<ConfigDocument> ConfigDocument::parse(std::string_view toml_text, std::string source_name) {
  auto impl = std::make_unique<Impl>();
  impl->source_name = std::move(source_name);
  // Debian's libtomlplusplus is built with exceptions: a syntax error arrives as parse_error.
  try {
    impl->root = toml::parse(toml_text, impl->source_name);
  } catch (const toml::parse_error& error) {
    return Status::invalid_argument(impl->position(error.source()) + ": " + std::string(error.description()));
  }
  return ConfigDocument(std::move(impl));
}

Status ConfigDocument::add_override(std::string_view assignment) {
  const auto eq = assignment.find('=');
  const std::string_view lhs = assignment.substr(0, eq);
  const auto dot = lhs.rfind('.');
  if (eq == std::string_view::npos || dot == std::string_view::npos || dot == 0 || dot + 1 == lhs.size()) {
    return Status::invalid_argument("--set " + std::string(assignment) +
                                    ": expected section.key=value (e.g. store.flush_disk_type=SYNC_FLUSH)");
  }
  impl_->overrides.push_back(
      {std::string(lhs.substr(0, dot)), to_snake_case(lhs.substr(dot + 1)), std::string(assignment.substr(eq + 1))});
  return Status::ok();
}

Result<ConfigValues> ConfigDocument::section(std::string_view path, const ConfigSchema& schema,
                                             std::span<const std::string_view> skip_keys) const {
  impl_->visited_sections.emplace(path);
  MQKIT_ASSIGN_OR_RETURN(const toml::table* table, impl_->table_at(path));
  const std::string label = path.empty() ? std::string() : "[" + std::string(path) + "] ";

  std::map<std::string, ConfigValue, std::less<>> given;
  if (table != nullptr) {
    MQKIT_ASSIGN_OR_RETURN(given, impl_->table_values(*table, label, schema, skip_keys));
  }
  for (const auto& o : impl_->overrides) {
    if (o.section != path) continue;
    if (std::find(skip_keys.begin(), skip_keys.end(), o.key) != skip_keys.end()) {
      o.consumed = true;
      continue;
    }
    const std::string where = "--set " + o.section + "." + o.key + ": " + label;
    const ConfigField* field = schema.find(o.key);
    if (field == nullptr) {
      std::string message = where + "unknown key '" + o.key + "'";
      const std::string hint = closest_key(schema, o.key);
      if (!hint.empty()) message += " (did you mean '" + hint + "'?)";
      return Status::invalid_argument(message);
    }
    auto value = parse_value_text(*field, o.text);
    if (!value) return Status::invalid_argument(where + value.status().message());
    if (Status s = check_value(*field, *value); !s) return Status::invalid_argument(where + s.message());
    given[o.key] = std::move(value).value();
    o.consumed = true;
  }
  return impl_->with_defaults(std::move(given), label, schema);
}

Result<std::vector<ConfigValues>> ConfigDocument::table_array(std::string_view path, const ConfigSchema& schema) const {
  MQKIT_ASSIGN_OR_RETURN(const toml::node* node, impl_->array_at(path));
  std::vector<ConfigValues> entries;
  if (node == nullptr) return entries;
  for (const auto& item : *node->as_array()) {
    const std::string label = "[[" + std::string(path) + "]] #" + std::to_string(entries.size() + 1) + " ";
    if (!item.is_table()) {
      return Status::invalid_argument(impl_->position(item.source()) + ": " + label + "must be a table, found " +
                                      std::string(type_name(item)));
    }
    MQKIT_ASSIGN_OR_RETURN(auto given, impl_->table_values(*item.as_table(), label, schema, {}));
    MQKIT_ASSIGN_OR_RETURN(auto values, impl_->with_defaults(std::move(given), label, schema));
    entries.push_back(std::move(values));
  }
  return entries;
}

Result<std::optional<std::string>> ConfigDocument::plugin_name(std::string_view path) const {
  for (auto it = impl_->overrides.rbegin(); it != impl_->overrides.rend(); ++it) {
    if (it->section == path && it->key == kPluginKey) {
      it->consumed = true;
      return std::optional<std::string>(it->text);
    }
  }
  MQKIT_ASSIGN_OR_RETURN(const toml::table* table, impl_->table_at(path));
  if (table == nullptr) return std::optional<std::string>();
  const toml::node* node = table->get(kPluginKey);
  if (node == nullptr) {
    return Status::invalid_argument(impl_->source_name + ": [" + std::string(path) +
                                    "] needs a 'plugin' key naming the plugin to load");
  }
  if (!node->is_string()) {
    return Status::invalid_argument(impl_->position(node->source()) + ": [" + std::string(path) +
                                    "] plugin: expected a string (a plugin name or alias)");
  }
  return std::optional<std::string>(node->as_string()->get());
}

Result<ConfigValues> ConfigDocument::plugin_section(std::string_view path, const ConfigSchema& schema) const {
  static constexpr std::string_view kSkip[] = {kPluginKey};
  return section(path, schema, kSkip);
}

Status ConfigDocument::check_all_consumed() const {
  // Walk every table; one that is not a visited section nor the parent of one is unknown.
  std::vector<std::pair<std::string, const toml::table*>> stack{{"", &impl_->root}};
  while (!stack.empty()) {
    auto [prefix, table] = stack.back();
    stack.pop_back();
    for (const auto& [key, node] : *table) {
      const std::string path = prefix.empty() ? std::string(key.str()) : prefix + "." + std::string(key.str());
      if (!node.is_table()) {
        if (prefix.empty()) {
          return Status::invalid_argument(impl_->position(key.source()) + ": key '" + path +
                                          "' must be inside a section such as [kernel]");
        }
        continue;
      }
      const bool visited = impl_->visited_sections.count(path) > 0;
      const bool parent_of_visited = std::any_of(
          impl_->visited_sections.begin(), impl_->visited_sections.end(),
          [&](const std::string& s) { return s.size() > path.size() && s.compare(0, path.size() + 1, path + ".") == 0; });
      if (!visited && !parent_of_visited) {
        return Status::invalid_argument(impl_->position(key.source()) + ": unknown section [" + path + "]");
      }
      stack.emplace_back(path, node.as_table());
    }
  }
  for (const auto& o : impl_->overrides) {
    if (!o.consumed) {
      return Status::invalid_argument("--set " + o.section + "." + o.key + "=" + o.text + ": unknown section [" +
                                      o.section + "]");
    }
  }
  return Status::ok();
}

std::string ConfigDocument::location_of(std::string_view path, std::string_view key) const {
  auto table = impl_->table_at(path);
  if (!table.is_ok() || *table == nullptr) return impl_->source_name;
  for (const auto& [raw_key, node] : **table) {
    if (to_snake_case(raw_key.str()) == key) return impl_->position(raw_key.source());
  }
  return impl_->source_name;
}

std::string ConfigDocument::location_of(std::string_view path, std::size_t index, std::string_view key) const {
  auto node = impl_->array_at(path);
  if (!node.is_ok() || *node == nullptr) return impl_->source_name;
  const toml::node* item = (*node)->as_array()->get(index);
  if (item == nullptr || !item->is_table()) return impl_->source_name;
  for (const auto& [raw_key, value] : *item->as_table()) {
    if (to_snake_case(raw_key.str()) == key) return impl_->position(raw_key.source());
  }
  return impl_->position(item->source());
}

const std::string& ConfigDocument::source_name() const noexcept { return impl_->source_name; }
const std::filesystem::path& ConfigDocument::base_directory() const noexcept { return impl_->base_directory; }

std::string ConfigDocument::render(std::string_view path, const ConfigSchema& schema, const ConfigValues& values) {
  return "[" + std::string(path) + "]\n" + render_keys(schema, values);
}

std::string ConfigDocument::render_keys(const ConfigSchema& schema, const ConfigValues& values) {
  std::string out;
  for (const auto& field : schema) {
    out += "# " + std::string(field.description);
    if (!field.needs_restart) out += " (can change at run time)";
    out += "\n" + std::string(field.key) + " = ";
    out += values.contains(field.key) ? render_value(field, values.all().find(field.key)->second) : "\"\"";
    out += "\n";
  }
  return out;
}

}  // namespace mqkit::kernel
