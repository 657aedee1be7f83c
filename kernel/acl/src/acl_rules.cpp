#include "mqkit/acl/acl_rules.hpp"

#include <algorithm>
#include <cstdint>

#include "mqkit/kernel/config_document.hpp"
#include "mqkit/kernel/config_value.hpp"
#include "mqkit/kernel/wall_clock.hpp"
#include "mqkit/protocol/validation.hpp"

namespace mqkit::acl {

using plugin::v1::ConfigField;
using plugin::v1::ConfigValues;
using plugin::v1::Result;
using plugin::v1::Status;
using plugin::v1::ValueType;

namespace {

constexpr std::string_view kAccounts = "accounts";
constexpr const char* kPermissions[] = {"DENY", "PUB", "SUB", "PUB|SUB", "SUB|PUB", nullptr};

constexpr ConfigField kTopLevelFields[] = {
    {.key = "global_white_remote_addresses", .type = ValueType::kStringList, .default_value = "",
     .description = "clients at these addresses need no signature and have every permission"},
    {.key = "data_version_counter", .type = ValueType::kInt, .default_value = "0",
     .description = "how many times admin requests changed this file (RocketMQ's dataVersion counter)",
     .min = 0},
    {.key = "data_version_timestamp", .type = ValueType::kInt, .default_value = "0",
     .description = "when they last changed it, ms since the epoch (RocketMQ's dataVersion timestamp)",
     .min = 0},
};
constexpr plugin::v1::ConfigSchema kTopLevelSchema{kTopLevelFields, std::size(kTopLevelFields)};

constexpr ConfigField kAccountFields[] = {
    {.key = "access_key", .type = ValueType::kString, .default_value = nullptr,
     .description = "the account's name, sent as AccessKey"},
    {.key = "secret_key", .type = ValueType::kString, .default_value = nullptr,
     .description = "the key requests of this account are signed with"},
    {.key = "white_remote_address", .type = ValueType::kString, .default_value = "",
     .description = "clients of this account at these addresses need no signature"},
    {.key = "admin", .type = ValueType::kBool, .default_value = "false",
     .description = "may create and delete topics and groups and update the broker's config"},
    {.key = "default_topic_perm", .type = ValueType::kString, .default_value = "DENY",
     .description = "permission on topics not in topic_perms", .allowed = kPermissions},
    {.key = "default_group_perm", .type = ValueType::kString, .default_value = "DENY",
     .description = "permission on groups not in group_perms", .allowed = kPermissions},
    {.key = "topic_perms", .type = ValueType::kStringList, .default_value = "",
     .description = "topic=PERMISSION entries"},
    {.key = "group_perms", .type = ValueType::kStringList, .default_value = "",
     .description = "group=PERMISSION entries"},
};
constexpr plugin::v1::ConfigSchema kAccountSchema{kAccountFields, std::size(kAccountFields)};

class AccountReader {
 public:
  AccountReader(const kernel::ConfigDocument& document, std::size_t index) : document_(document), index_(index) {}

  Status error(std::string_view key, const std::string& message) const {
    return Status::invalid_argument(document_.location_of(kAccounts, index_, key) + ": [[accounts]] #" +
                                    std::to_string(index_ + 1) + " " + std::string(key) + ": " + message);
  }

  Result<AclAccount> read(const ConfigValues& values) const {
    AclAccount account;
    account.access_key = values.get_string("access_key");
    account.secret_key = values.get_string("secret_key");
    for (const auto key : {"access_key", "secret_key"}) {
      if (values.get_string(key).size() < kMinKeyLength) {
        return error(key, "must have " + std::to_string(kMinKeyLength) + " characters at least");
      }
    }
    auto white = RemoteAddressPattern::parse(values.get_string("white_remote_address"));
    if (!white) return error("white_remote_address", white.status().message());
    account.white_remote_address = std::move(white).value();
    account.admin = values.get_bool("admin");
    account.default_topic_perm = parse_permission(values.get_string("default_topic_perm")).value();
    account.default_group_perm = parse_permission(values.get_string("default_group_perm")).value();
    // Groups first, then topics: an explicit %RETRY%group topic entry wins, as in RocketMQ.
    MQKIT_RETURN_IF_ERROR(add_resources(values, "group_perms", account));
    MQKIT_RETURN_IF_ERROR(add_resources(values, "topic_perms", account));
    return account;
  }

 private:
  Status add_resources(const ConfigValues& values, std::string_view key, AclAccount& account) const {
    const bool groups = key == "group_perms";
    for (const auto& entry : values.get_list(key)) {
      auto parsed = parse_resource_permission(entry);
      if (!parsed) return error(key, parsed.status().message());
      account.resource_perms[groups ? protocol::retry_topic(parsed->resource) : parsed->resource] = parsed->permission;
    }
    return Status::ok();
  }

  const kernel::ConfigDocument& document_;
  std::size_t index_;
};

}  // namespace

Result<AclRules> acl_rules_from(const kernel::ConfigDocument& document) {
  AclRules rules;
  static constexpr std::string_view kSkip[] = {kAccounts};
  MQKIT_ASSIGN_OR_RETURN(const ConfigValues top, document.section("", kTopLevelSchema, kSkip));
  for (const auto& text : top.get_list("global_white_remote_addresses")) {
    auto pattern = RemoteAddressPattern::parse(text);
    if (!pattern) {
      return Status::invalid_argument(document.location_of("", "global_white_remote_addresses") +
                                      ": global_white_remote_addresses: " + pattern.status().message());
    }
    rules.global_white_remote_addresses.push_back(std::move(pattern).value());
  }
  rules.version_counter = top.get_int("data_version_counter");
  rules.version_timestamp_ms = top.get_int("data_version_timestamp");
  MQKIT_ASSIGN_OR_RETURN(const std::vector<ConfigValues> accounts, document.table_array(kAccounts, kAccountSchema));
  for (std::size_t i = 0; i < accounts.size(); ++i) {
    const AccountReader reader(document, i);
    MQKIT_ASSIGN_OR_RETURN(AclAccount account, reader.read(accounts[i]));
    const std::string key = account.access_key;
    if (!rules.accounts.emplace(key, std::move(account)).second) {
      return reader.error("access_key", "'" + key + "' is the access key of an earlier account too");
    }
  }
  return rules;
}

// ---- Changing the file -------------------------------------------------------------------

namespace {

// The file as values: the top-level keys and every account, defaults filled in.
struct AclFileValues {
  ConfigValues top;
  std::vector<ConfigValues> accounts;
};

Result<AclFileValues> values_of(const kernel::ConfigDocument& document) {
  static constexpr std::string_view kSkip[] = {kAccounts};
  AclFileValues file;
  MQKIT_ASSIGN_OR_RETURN(file.top, document.section("", kTopLevelSchema, kSkip));
  MQKIT_ASSIGN_OR_RETURN(file.accounts, document.table_array(kAccounts, kAccountSchema));
  return file;
}

// Renders `file` as the next version and checks that the text reads back as valid rules (as
// the broker will read it).
Result<std::string> checked_text(AclFileValues file, const std::string& source_name) {
  file.top.set("data_version_counter", file.top.get_int("data_version_counter") + 1);
  file.top.set("data_version_timestamp", kernel::wall_clock_ms());
  std::string text = "# ACL file (docs/acl.md), written by the broker for an admin request.\n";
  text += kernel::ConfigDocument::render_keys(kTopLevelSchema, file.top);
  for (const ConfigValues& account : file.accounts) {
    text += "\n[[" + std::string(kAccounts) + "]]\n" + kernel::ConfigDocument::render_keys(kAccountSchema, account);
  }
  MQKIT_ASSIGN_OR_RETURN(const auto document, kernel::ConfigDocument::parse(text, source_name));
  if (auto rules = acl_rules_from(document); !rules) {
    return rules.status().with_context("the change would leave an invalid ACL file");
  }
  return text;
}

std::vector<ConfigValues>::iterator account_of(std::vector<ConfigValues>& accounts, std::string_view access_key) {
  return std::find_if(accounts.begin(), accounts.end(),
                      [&](const ConfigValues& a) { return a.get_string("access_key") == access_key; });
}

}  // namespace

Result<std::string> acl_text_with_account(const kernel::ConfigDocument& document, const AccountUpdate& update) {
  if (update.access_key.size() < kMinKeyLength) {
    return Status::invalid_argument("access key '" + update.access_key + "' must have " +
                                    std::to_string(kMinKeyLength) + " characters at least");
  }
  MQKIT_ASSIGN_OR_RETURN(AclFileValues file, values_of(document));
  auto account = account_of(file.accounts, update.access_key);
  if (account == file.accounts.end()) {
    if (!update.secret_key) return Status::invalid_argument("a new account (" + update.access_key + ") needs a secret key");
    ConfigValues fresh;
    for (const ConfigField& field : kAccountSchema) {
      if (field.default_value != nullptr) fresh.set(field.key, kernel::parse_value_text(field, field.default_value).value());
    }
    fresh.set("access_key", update.access_key);
    file.accounts.push_back(std::move(fresh));
    account = file.accounts.end() - 1;
  }
  if (update.secret_key) account->set("secret_key", *update.secret_key);
  if (update.white_remote_address) account->set("white_remote_address", *update.white_remote_address);
  if (update.admin) account->set("admin", *update.admin);
  for (const auto& [key, value] : {std::pair{"default_topic_perm", &update.default_topic_perm},
                                   std::pair{"default_group_perm", &update.default_group_perm}}) {
    if (!*value) continue;
    const ConfigField& field = *kAccountSchema.find(key);
    MQKIT_RETURN_IF_ERROR(kernel::check_value(field, **value));
    account->set(key, **value);
  }
  if (update.topic_perms) account->set("topic_perms", *update.topic_perms);
  if (update.group_perms) account->set("group_perms", *update.group_perms);
  return checked_text(std::move(file), document.source_name());
}

Result<std::string> acl_text_without_account(const kernel::ConfigDocument& document, std::string_view access_key) {
  MQKIT_ASSIGN_OR_RETURN(AclFileValues file, values_of(document));
  const auto account = account_of(file.accounts, access_key);
  if (account == file.accounts.end()) return Status::not_found("no account has access key " + std::string(access_key));
  file.accounts.erase(account);
  return checked_text(std::move(file), document.source_name());
}

Result<std::string> acl_text_with_global_white_addresses(const kernel::ConfigDocument& document,
                                                         const std::vector<std::string>& addresses) {
  MQKIT_ASSIGN_OR_RETURN(AclFileValues file, values_of(document));
  file.top.set("global_white_remote_addresses", addresses);
  return checked_text(std::move(file), document.source_name());
}

}  // namespace mqkit::acl
