// The ACL file (acl_file of [broker], etc/acl.toml): RocketMQ's plain_acl.yml in TOML.
//
//   global_white_remote_addresses = ["10.10.103.*"]   # these clients need no signature
//   data_version_counter = 3             # RocketMQ's dataVersion: bumped by each admin request's
//   data_version_timestamp = 1700000000000  # change, with its time (ms); both 0 by default
//
//   [[accounts]]
//   access_key = "RocketMQ"              # 7 characters at least, unique
//   secret_key = "12345678"              # 7 characters at least
//   white_remote_address = ""            # clients of this account at these addresses need no signature
//   admin = false                        # may create/delete topics and groups, update broker config
//   default_topic_perm = "DENY"          # DENY, PUB, SUB or PUB|SUB
//   default_group_perm = "SUB"
//   topic_perms = ["topicA=DENY", "topicB=PUB|SUB"]
//   group_perms = ["groupA=DENY", "groupB=SUB"]
//
// RocketMQ's camelCase spellings (globalWhiteRemoteAddresses, accessKey, ...) are accepted.
// Every key and value is checked; errors name file:line:column.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mqkit/acl/permission.hpp"
#include "mqkit/acl/remote_address_pattern.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::kernel {
class ConfigDocument;
}

namespace mqkit::acl {

inline constexpr std::size_t kMinKeyLength = 7;  // RocketMQ refuses keys of 6 characters or fewer

struct AclAccount {
  std::string access_key;
  std::string secret_key;
  RemoteAddressPattern white_remote_address;
  bool admin = false;
  Permission default_topic_perm = kDeny;
  Permission default_group_perm = kDeny;
  // Topics by name, groups by their retry topic (%RETRY%group), as RocketMQ keys them.
  std::map<std::string, Permission, std::less<>> resource_perms;
};

struct AclRules {
  std::vector<RemoteAddressPattern> global_white_remote_addresses;
  std::map<std::string, AclAccount, std::less<>> accounts;  // by access key
  // The file's version (RocketMQ's dataVersion in plain_acl.yml; GET_BROKER_CLUSTER_ACL_INFO).
  std::int64_t version_counter = 0;
  std::int64_t version_timestamp_ms = 0;
};

// The rules of a parsed ACL file, every key and value checked.
plugin::v1::Result<AclRules> acl_rules_from(const kernel::ConfigDocument& document);

// ---- Changing the file (RocketMQ's ACL admin requests) -----------------------------------
// Each returns the whole new text of the ACL file `document` was parsed from, rendered with
// every key's description as a comment (the file's own comments are not kept), its version
// counter one higher and its version time now, after checking that it reads back as valid rules.

// UPDATE_AND_CREATE_ACL_CONFIG: the account of `access_key` gets the fields given; a field not
// given keeps its value, or its default for a new account (which needs a secret key).
struct AccountUpdate {
  std::string access_key;
  std::optional<std::string> secret_key{};
  std::optional<std::string> white_remote_address{};
  std::optional<bool> admin{};
  std::optional<std::string> default_topic_perm{};
  std::optional<std::string> default_group_perm{};
  std::optional<std::vector<std::string>> topic_perms{};  // replaces the list when given
  std::optional<std::vector<std::string>> group_perms{};
};
plugin::v1::Result<std::string> acl_text_with_account(const kernel::ConfigDocument& document, const AccountUpdate& update);
// DELETE_ACL_CONFIG: NotFound when no account has `access_key`.
plugin::v1::Result<std::string> acl_text_without_account(const kernel::ConfigDocument& document,
                                                         std::string_view access_key);
// UPDATE_GLOBAL_WHITE_ADDRS_CONFIG: the global white list replaced by `addresses`.
plugin::v1::Result<std::string> acl_text_with_global_white_addresses(const kernel::ConfigDocument& document,
                                                                     const std::vector<std::string>& addresses);

}  // namespace mqkit::acl
