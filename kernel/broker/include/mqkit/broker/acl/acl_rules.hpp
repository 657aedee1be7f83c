// The ACL file (acl_file of [broker], etc/acl.toml): RocketMQ's plain_acl.yml in TOML.
//
//   global_white_remote_addresses = ["10.10.103.*"]   # these clients need no signature
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

#include <map>
#include <string>
#include <vector>

#include "mqkit/broker/acl/permission.hpp"
#include "mqkit/broker/acl/remote_address_pattern.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::kernel {
class ConfigDocument;
}

namespace mqkit::broker::acl {

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
};

// The rules of a parsed ACL file, every key and value checked.
plugin::v1::Result<AclRules> acl_rules_from(const kernel::ConfigDocument& document);

}  // namespace mqkit::broker::acl
