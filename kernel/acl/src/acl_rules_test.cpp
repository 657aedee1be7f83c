#include "mqkit/acl/acl_rules.hpp"

#include <gtest/gtest.h>

#include <functional>

#include "mqkit/kernel/config_document.hpp"

namespace mqkit::acl {
namespace {

plugin::v1::Result<AclRules> rules_of(std::string_view toml) {
  MQKIT_ASSIGN_OR_RETURN(const auto document, kernel::ConfigDocument::parse(toml, "acl.toml"));
  return acl_rules_from(document);
}

// RocketMQ's distribution/conf/plain_acl.yml, written as TOML in RocketMQ's camelCase spelling.
constexpr std::string_view kRocketMqExample = R"(
globalWhiteRemoteAddresses = ["10.10.103.*", "192.168.0.*"]

[[accounts]]
accessKey = "RocketMQ"
secretKey = "12345678"
whiteRemoteAddress = ""
admin = false
defaultTopicPerm = "DENY"
defaultGroupPerm = "SUB"
topicPerms = ["topicA=DENY", "topicB=PUB|SUB", "topicC=SUB"]
groupPerms = ["groupA=DENY", "groupB=PUB|SUB", "groupC=SUB"]

[[accounts]]
accessKey = "rocketmq2"
secretKey = "12345678"
whiteRemoteAddress = "192.168.1.*"
admin = true
)";

TEST(AclRulesTest, ReadsRocketMqsExampleFile) {
  auto rules = rules_of(kRocketMqExample);
  ASSERT_TRUE(rules.is_ok()) << rules.status().to_string();
  ASSERT_EQ(rules->global_white_remote_addresses.size(), 2u);
  EXPECT_TRUE(rules->global_white_remote_addresses[1].matches("192.168.0.9"));
  ASSERT_EQ(rules->accounts.size(), 2u);
  const AclAccount& plain = rules->accounts.at("RocketMQ");
  EXPECT_EQ(plain.secret_key, "12345678");
  EXPECT_FALSE(plain.admin);
  EXPECT_FALSE(plain.white_remote_address.matches("192.168.1.1"));
  EXPECT_EQ(plain.default_topic_perm, kDeny);
  EXPECT_EQ(plain.default_group_perm, kSub);
  EXPECT_EQ(plain.resource_perms.at("topicA"), kDeny);
  EXPECT_EQ(plain.resource_perms.at("topicB"), kPub | kSub);
  // Groups are keyed by their retry topic.
  EXPECT_EQ(plain.resource_perms.at("%RETRY%groupA"), kDeny);
  EXPECT_EQ(plain.resource_perms.at("%RETRY%groupC"), kSub);
  EXPECT_EQ(plain.resource_perms.count("groupA"), 0u);
  const AclAccount& admin = rules->accounts.at("rocketmq2");
  EXPECT_TRUE(admin.admin);
  EXPECT_TRUE(admin.white_remote_address.matches("192.168.1.20"));
  EXPECT_EQ(admin.default_topic_perm, kDeny);  // unset defaults deny, as in RocketMQ
  EXPECT_TRUE(admin.resource_perms.empty());
}

TEST(AclRulesTest, AnEmptyFileHasNoAccounts) {
  auto rules = rules_of("");
  ASSERT_TRUE(rules.is_ok());
  EXPECT_TRUE(rules->accounts.empty());
  EXPECT_TRUE(rules->global_white_remote_addresses.empty());
}

TEST(AclRulesTest, AnExplicitRetryTopicEntryWinsOverItsGroupEntry) {
  auto rules = rules_of(R"([[accounts]]
access_key = "account1"
secret_key = "secret12"
topic_perms = ["%RETRY%g=PUB"]
group_perms = ["g=SUB"]
)");
  ASSERT_TRUE(rules.is_ok()) << rules.status().to_string();
  EXPECT_EQ(rules->accounts.at("account1").resource_perms.at("%RETRY%g"), kPub);
}

TEST(AclRulesTest, ErrorsNameFileLineAndKey) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"global_white_remote_addresses = [\"10.0.0.*\", \"10.0.*.1\"]\n",
       "acl.toml:1:1: global_white_remote_addresses: white address '10.0.*.1': only '*' may follow a range "
       "(192.168.1-5.*)"},
      {"globalWhiteRemoteAddress = []\n",
       "acl.toml:1:1: unknown key 'globalWhiteRemoteAddress' (did you mean 'global_white_remote_addresses'?)"},
      {"[[accounts]]\naccess_key = \"account1\"\n",
       "acl.toml: [[accounts]] #1 required key 'secret_key' is missing (the key requests of this account are "
       "signed with)"},
      {"[[accounts]]\naccess_key = \"account1\"\nsecret_key = \"secret12\"\nadmin = \"yes\"\n",
       "acl.toml:4:9: [[accounts]] #1 admin: expected true or false, found a string"},
      {"[[accounts]]\naccess_key = \"account1\"\nsecret_key = \"secret12\"\ndefault_topic_perm = \"ALL\"\n",
       "acl.toml:4:1: [[accounts]] #1 default_topic_perm: \"ALL\" is not one of DENY, PUB, SUB, PUB|SUB, SUB|PUB"},
      {"[[accounts]]\naccess_key = \"short\"\nsecret_key = \"secret12\"\n",
       "acl.toml:2:1: [[accounts]] #1 access_key: must have 7 characters at least"},
      {"[[accounts]]\naccess_key = \"account1\"\nsecret_key = \"123456\"\n",
       "acl.toml:3:1: [[accounts]] #1 secret_key: must have 7 characters at least"},
      {"[[accounts]]\naccess_key = \"account1\"\nsecret_key = \"secret12\"\ntopic_perms = [\"a=PUB\", \"b=READ\"]\n",
       "acl.toml:4:1: [[accounts]] #1 topic_perms: 'b=READ': 'READ' is not a permission: expected DENY, PUB, SUB "
       "or PUB|SUB"},
      {"[[accounts]]\naccess_key = \"account1\"\nsecret_key = \"secret12\"\ngroup_perms = [\"g\"]\n",
       "acl.toml:4:1: [[accounts]] #1 group_perms: 'g' is not name=PERMISSION (e.g. TopicA=PUB|SUB)"},
      {"[[accounts]]\naccess_key = \"account1\"\nsecret_key = \"secret12\"\nwhite_remote_address = \"10.0.0\"\n",
       "acl.toml:4:1: [[accounts]] #1 white_remote_address: white address '10.0.0': '10.0.0' is not an IPv4 or "
       "IPv6 address"},
      {"[[accounts]]\naccess_key = \"account1\"\nsecret_key = \"secret12\"\n[[accounts]]\n"
       "access_key = \"account1\"\nsecret_key = \"secret34\"\n",
       "acl.toml:5:1: [[accounts]] #2 access_key: 'account1' is the access key of an earlier account too"},
      {"[[accounts]]\naccess_key = \"account1\"\nsecret_key = \"secret12\"\ndataVersion = 1\n",
       "acl.toml:4:1: [[accounts]] #1 unknown key 'dataVersion'"},
      {"accounts = \"none\"\n", "acl.toml:1:12: accounts must be an array of tables ([[accounts]]), found a string"},
      {"[[accounts]\n", "acl.toml:1:12: Error while parsing table header"},
  };
  for (const auto& [text, expected] : cases) {
    auto rules = rules_of(text);
    ASSERT_FALSE(rules.is_ok()) << text;
    EXPECT_EQ(rules.status().code(), plugin::v1::StatusCode::kInvalidArgument) << text;
    EXPECT_TRUE(rules.status().message().starts_with(expected)) << rules.status().message() << "\nexpected: " << expected;
  }
}

// ---- Changing the file (the ACL admin requests) -------------------------------------------

plugin::v1::Result<std::string> edited(std::string_view toml,
                                       const std::function<plugin::v1::Result<std::string>(const kernel::ConfigDocument&)>& edit) {
  MQKIT_ASSIGN_OR_RETURN(const auto document, kernel::ConfigDocument::parse(toml, "acl.toml"));
  return edit(document);
}

TEST(AclFileEditTest, UpdatingAnAccountKeepsWhatTheRequestDoesNotGive) {
  auto text = edited(kRocketMqExample, [](const kernel::ConfigDocument& d) {
    return acl_text_with_account(d, {.access_key = "RocketMQ", .default_topic_perm = "PUB", .topic_perms = std::vector<std::string>{"topicZ=SUB"}});
  });
  ASSERT_TRUE(text.is_ok()) << text.status().to_string();
  auto rules = rules_of(*text);
  ASSERT_TRUE(rules.is_ok()) << rules.status().to_string() << "\n" << *text;
  const AclAccount& account = rules->accounts.at("RocketMQ");
  EXPECT_EQ(account.secret_key, "12345678");
  EXPECT_EQ(account.default_topic_perm, kPub);
  EXPECT_EQ(account.default_group_perm, kSub);
  EXPECT_EQ(account.resource_perms.at("topicZ"), kSub);
  EXPECT_FALSE(account.resource_perms.count("topicA"));             // the list was replaced
  EXPECT_EQ(account.resource_perms.at("%RETRY%groupA"), kDeny);     // group_perms kept
  EXPECT_TRUE(rules->accounts.at("rocketmq2").admin);               // other accounts untouched
  EXPECT_EQ(rules->global_white_remote_addresses.size(), 2u);
}

TEST(AclFileEditTest, ANewAccountNeedsASecretAndStartsFromTheDefaults) {
  EXPECT_FALSE(edited(kRocketMqExample, [](const kernel::ConfigDocument& d) {
                 return acl_text_with_account(d, {.access_key = "newcomer"});
               }).is_ok());
  auto text = edited(kRocketMqExample, [](const kernel::ConfigDocument& d) {
    return acl_text_with_account(d, {.access_key = "newcomer", .secret_key = "newcomer-secret", .admin = true});
  });
  ASSERT_TRUE(text.is_ok()) << text.status().to_string();
  auto rules = rules_of(*text);
  ASSERT_TRUE(rules.is_ok()) << rules.status().to_string();
  const AclAccount& account = rules->accounts.at("newcomer");
  EXPECT_TRUE(account.admin);
  EXPECT_EQ(account.default_topic_perm, kDeny);
  EXPECT_EQ(rules->accounts.size(), 3u);
}

TEST(AclFileEditTest, AChangeThatWouldBreakTheFileIsRefusedAndSaysWhy) {
  const auto refused = [](AccountUpdate update) {
    return edited(kRocketMqExample, [&](const kernel::ConfigDocument& d) { return acl_text_with_account(d, update); });
  };
  EXPECT_FALSE(refused({.access_key = "short"}).is_ok());  // 5 characters
  EXPECT_FALSE(refused({.access_key = "RocketMQ", .secret_key = "tiny"}).is_ok());
  EXPECT_FALSE(refused({.access_key = "RocketMQ", .default_group_perm = "ALL"}).is_ok());
  const auto bad_entry = refused({.access_key = "RocketMQ", .topic_perms = std::vector<std::string>{"topicA=EVERYTHING"}});
  ASSERT_FALSE(bad_entry.is_ok());
  EXPECT_NE(bad_entry.status().message().find("topic_perms"), std::string::npos) << bad_entry.status().to_string();
  EXPECT_FALSE(refused({.access_key = "RocketMQ", .white_remote_address = "300.1.1.1"}).is_ok());
}

TEST(AclFileEditTest, DeletingAnAccountAndReplacingTheGlobalWhiteList) {
  auto text = edited(kRocketMqExample, [](const kernel::ConfigDocument& d) { return acl_text_without_account(d, "rocketmq2"); });
  ASSERT_TRUE(text.is_ok()) << text.status().to_string();
  auto rules = rules_of(*text);
  ASSERT_TRUE(rules.is_ok());
  EXPECT_EQ(rules->accounts.size(), 1u);
  const auto missing = edited(kRocketMqExample, [](const kernel::ConfigDocument& d) { return acl_text_without_account(d, "nobody-here"); });
  EXPECT_EQ(missing.status().code(), plugin::v1::StatusCode::kNotFound);

  text = edited(kRocketMqExample, [](const kernel::ConfigDocument& d) {
    return acl_text_with_global_white_addresses(d, {"127.0.0.1"});
  });
  ASSERT_TRUE(text.is_ok());
  rules = rules_of(*text);
  ASSERT_TRUE(rules.is_ok());
  ASSERT_EQ(rules->global_white_remote_addresses.size(), 1u);
  EXPECT_TRUE(rules->global_white_remote_addresses[0].matches("127.0.0.1"));
  EXPECT_FALSE(edited(kRocketMqExample, [](const kernel::ConfigDocument& d) {
                 return acl_text_with_global_white_addresses(d, {"10.0.0.999"});
               }).is_ok());
}

}  // namespace
}  // namespace mqkit::acl
