#include "mqkit/acl/access_control.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "child_process.hpp"
#include "mqkit/kernel/config_document.hpp"
#include "mqkit/protocol/acl_signature.hpp"
#include "mqkit/protocol/codes.hpp"

namespace mqkit::acl {
namespace {

using plugin::v1::RemotingCommand;

std::string account(const std::string& access_key, const std::string& secret_key, const std::string& topic_perm) {
  return "[[accounts]]\naccess_key = \"" + access_key + "\"\nsecret_key = \"" + secret_key +
         "\"\ndefault_group_perm = \"SUB\"\ndefault_topic_perm = \"" + topic_perm + "\"\n";
}

class AccessControlTest : public ::testing::Test {
 protected:
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Writes the file and moves its modification time on, as a later edit would.
  void write(const std::string& content) {
    std::ofstream(file_, std::ios::trunc) << content;
    std::filesystem::last_write_time(file_, std::filesystem::file_time_type::clock::now() + std::chrono::seconds(++edits_));
  }

  static RemotingCommand send(const std::string& access_key, const std::string& secret_key) {
    auto request = RemotingCommand::request(protocol::request_code::kSendMessageV2);
    request.ext_fields.set("a", "PG");
    request.ext_fields.set("b", "Orders");
    EXPECT_TRUE(protocol::acl::sign(request, {.access_key = access_key, .secret_key = secret_key}).is_ok());
    return request;
  }

  std::filesystem::path dir_ = mqkit::testing::fresh_directory("access-control");
  std::filesystem::path file_ = dir_ / "acl.toml";
  int edits_ = 0;
};

TEST_F(AccessControlTest, RefusalsCarryRocketMqsExceptionName) {
  write(account("account1", "secret-1", "PUB"));
  auto control = AccessControl::load(file_);
  ASSERT_TRUE(control.is_ok()) << control.status().to_string();
  EXPECT_TRUE((*control)->check(send("account1", "secret-1"), "127.0.0.1:1").is_ok());
  const auto refused = (*control)->check(send("account1", "secret-2"), "127.0.0.1:1");
  EXPECT_EQ(refused.code(), plugin::v1::StatusCode::kPermissionDenied);
  EXPECT_TRUE(refused.message().starts_with("AclException: signature check failed for AccessKey account1"))
      << refused.message();
}

TEST_F(AccessControlTest, ABadOrMissingFileDoesNotLoad) {
  EXPECT_EQ(AccessControl::load(file_).status().code(), plugin::v1::StatusCode::kNotFound);
  write("[[accounts]]\naccess_key = \"account1\"\n");
  const auto bad = AccessControl::load(file_);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_TRUE(bad.status().message().starts_with(file_.string() + ": [[accounts]] #1 required key 'secret_key'"))
      << bad.status().message();
}

TEST_F(AccessControlTest, TakesAChangedFileAndKeepsTheOldRulesWhenTheNewFileIsBad) {
  write(account("account1", "secret-1", "PUB"));
  auto loaded = AccessControl::load(file_);
  ASSERT_TRUE(loaded.is_ok());
  AccessControl& control = **loaded;
  EXPECT_FALSE(control.reload_if_changed());  // nothing changed

  write(account("account1", "secret-1", "DENY"));
  EXPECT_TRUE(control.reload_if_changed());
  EXPECT_TRUE(control.check(send("account1", "secret-1"), "127.0.0.1:1").message().find("no PUB permission") !=
              std::string::npos);

  write(account("account1", "secret-1", "BOTH"));  // invalid: refused, DENY stays
  EXPECT_FALSE(control.reload_if_changed());
  EXPECT_FALSE(control.check(send("account1", "secret-1"), "127.0.0.1:1").is_ok());
  EXPECT_FALSE(control.reload_if_changed());  // not tried again until it changes again

  std::filesystem::remove(file_);  // a deleted file is refused too
  EXPECT_FALSE(control.reload_if_changed());
  EXPECT_FALSE(control.check(send("account2", "secret-2"), "127.0.0.1:1").is_ok());

  write(account("account2", "secret-2", "PUB"));
  EXPECT_TRUE(control.reload_if_changed());
  EXPECT_TRUE(control.check(send("account2", "secret-2"), "127.0.0.1:1").is_ok());
  EXPECT_FALSE(control.check(send("account1", "secret-1"), "127.0.0.1:1").is_ok());

  write(account("account2", "secret-2", "PUB"));  // touched, same content
  EXPECT_FALSE(control.reload_if_changed());
}

// An admin request's change is written to the file and in force at once; one that fails leaves
// the file and the rules as they were.
TEST_F(AccessControlTest, AChangeIsWrittenAndInForceAtOnce) {
  write(account("account1", "secret-1", "DENY"));
  auto control = AccessControl::load(file_);
  ASSERT_TRUE(control.is_ok()) << control.status().to_string();
  EXPECT_FALSE((*control)->check(send("account1", "secret-1"), "127.0.0.1:1").is_ok());
  ASSERT_TRUE((*control)
                  ->change([](const kernel::ConfigDocument& d) {
                    return acl_text_with_account(d, {.access_key = "account1", .default_topic_perm = "PUB"});
                  })
                  .is_ok());
  EXPECT_TRUE((*control)->check(send("account1", "secret-1"), "127.0.0.1:1").is_ok());
  std::ifstream in(file_);
  const std::string on_disk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(on_disk.find("default_topic_perm = \"PUB\""), std::string::npos) << on_disk;
  EXPECT_FALSE((*control)->reload_if_changed());  // the broker's own write is not read again

  const auto refused = (*control)->change([](const kernel::ConfigDocument& d) {
    return acl_text_with_account(d, {.access_key = "account1", .secret_key = "short"});
  });
  EXPECT_FALSE(refused.is_ok());
  EXPECT_TRUE((*control)->check(send("account1", "secret-1"), "127.0.0.1:1").is_ok());
  std::ifstream again(file_);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>()), on_disk);
}

}  // namespace
}  // namespace mqkit::acl
