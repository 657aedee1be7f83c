#include "mqkit/plugin/v1/java_hash.hpp"

#include <gtest/gtest.h>

namespace mqkit::plugin::v1 {
namespace {

// Values computed with Java's String.hashCode / Long.hashCode.
TEST(JavaHashTest, MatchesJavaStringHashCode) {
  EXPECT_EQ(java_string_hash(""), 0);
  EXPECT_EQ(java_string_hash("*"), 42);
  EXPECT_EQ(java_string_hash("TagA"), 2598919);
  EXPECT_EQ(java_string_hash("TagB"), 2598920);
  EXPECT_EQ(java_string_hash("hello"), 99162322);
  // Wraps around like a Java int.
  EXPECT_EQ(java_string_hash("polygenelubricants"), static_cast<std::int32_t>(0x80000000));
}

TEST(JavaHashTest, NonAsciiUsesUtf16CodeUnits) {
  EXPECT_EQ(java_string_hash("\xC3\xA9"), 233);                 // é = U+00E9
  EXPECT_EQ(java_string_hash("\xE4\xB8\xAD"), 0x4E2D);          // 中 = U+4E2D
  // U+1F600 is the surrogate pair D83D DE00: 31*0xD83D + 0xDE00.
  EXPECT_EQ(java_string_hash("\xF0\x9F\x98\x80"), 31 * 0xD83D + 0xDE00);
  // A stray continuation byte decodes as U+FFFD.
  EXPECT_EQ(java_string_hash("\x80"), 0xFFFD);
}

TEST(JavaHashTest, LongHash) {
  EXPECT_EQ(java_long_hash(0), 0);
  EXPECT_EQ(java_long_hash(42), 42);
  EXPECT_EQ(java_long_hash(-1), 0);
  EXPECT_EQ(java_long_hash(0x100000000LL), 1);
}

}  // namespace
}  // namespace mqkit::plugin::v1
