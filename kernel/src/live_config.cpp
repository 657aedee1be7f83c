#include "mqkit/kernel/live_config.hpp"

#include "mqkit/kernel/config_value.hpp"

namespace mqkit::kernel {

std::map<std::string, std::string> camel_case_properties(const plugin::v1::ConfigValues& values) {
  std::map<std::string, std::string> properties;
  for (const auto& [key, value] : values.all()) properties[to_camel_case(key)] = plugin::v1::format_value(value);
  return properties;
}

plugin::v1::Result<std::vector<std::pair<std::string, plugin::v1::ConfigValue>>> checked_live_updates(
    const plugin::v1::ConfigSchema& schema, const std::map<std::string, std::string>& properties,
    std::string_view owner, std::string_view config_file) {
  std::vector<std::pair<std::string, plugin::v1::ConfigValue>> changes;
  for (const auto& [name, text] : properties) {
    std::string key = to_snake_case(name);
    const plugin::v1::ConfigField* field = schema.find(key);
    if (field == nullptr) return plugin::v1::Status::invalid_argument("no " + std::string(owner) + " config key " + name);
    if (field->needs_restart) {
      return plugin::v1::Status(plugin::v1::StatusCode::kPermissionDenied,
                                name + " cannot change while the " + std::string(owner) + " runs: set it in " +
                                    std::string(config_file) + " and restart");
    }
    auto value = parse_value_text(*field, text);
    if (!value) return value.status().with_context(name);
    MQKIT_RETURN_IF_ERROR(check_value(*field, *value));
    changes.emplace_back(std::move(key), std::move(value).value());
  }
  return changes;
}

}  // namespace mqkit::kernel
