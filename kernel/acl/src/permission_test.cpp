#include "mqkit/acl/permission.hpp"

#include <gtest/gtest.h>

namespace mqkit::acl {
namespace {

TEST(AclPermissionTest, ParsesRocketMqPermissionNames) {
  EXPECT_EQ(parse_permission("DENY").value(), kDeny);
  EXPECT_EQ(parse_permission("PUB").value(), kPub);
  EXPECT_EQ(parse_permission(" SUB ").value(), kSub);
  EXPECT_EQ(parse_permission("PUB|SUB").value(), kPub | kSub);
  EXPECT_EQ(parse_permission("SUB|PUB").value(), kPub | kSub);
  for (const char* bad : {"", "ANY", "pub", "PUB|", "PUB | SUB", "READ"}) {
    EXPECT_EQ(parse_permission(bad).status().code(), plugin::v1::StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_EQ(parse_permission("PUBSUB").status().message(),
            "'PUBSUB' is not a permission: expected DENY, PUB, SUB or PUB|SUB");
}

TEST(AclPermissionTest, DenyWinsAndAnyTakesEitherPermission) {
  EXPECT_TRUE(permits(kPub, kPub));
  EXPECT_TRUE(permits(kSub, kPub | kSub));
  EXPECT_FALSE(permits(kPub, kSub));
  EXPECT_FALSE(permits(kSub, kPub));
  EXPECT_FALSE(permits(kPub, kDeny));
  EXPECT_FALSE(permits(kPub, kDeny | kPub));
  EXPECT_TRUE(permits(kAny, kPub));
  EXPECT_TRUE(permits(kAny, kSub));
  EXPECT_FALSE(permits(kAny, kDeny));
}

TEST(AclPermissionTest, NamesPermissionsForMessages) {
  EXPECT_EQ(permission_name(kDeny), "DENY");
  EXPECT_EQ(permission_name(kPub | kSub), "PUB|SUB");
  EXPECT_EQ(permission_name(kSub), "SUB");
  EXPECT_EQ(permission_name(kAny), "ANY");
}

TEST(AclPermissionTest, ParsesResourceEntries) {
  auto entry = parse_resource_permission(" TopicA = PUB|SUB");
  ASSERT_TRUE(entry.is_ok()) << entry.status().to_string();
  EXPECT_EQ(entry->resource, "TopicA");
  EXPECT_EQ(entry->permission, kPub | kSub);
  EXPECT_EQ(parse_resource_permission("groupA=DENY")->permission, kDeny);
  EXPECT_EQ(parse_resource_permission("TopicA").status().message(),
            "'TopicA' is not name=PERMISSION (e.g. TopicA=PUB|SUB)");
  EXPECT_FALSE(parse_resource_permission("=PUB").is_ok());
  EXPECT_FALSE(parse_resource_permission("a=PUB=SUB").is_ok());
  EXPECT_EQ(parse_resource_permission("TopicA=WRITE").status().message(),
            "'TopicA=WRITE': 'WRITE' is not a permission: expected DENY, PUB, SUB or PUB|SUB");
}

}  // namespace
}  // namespace mqkit::acl
