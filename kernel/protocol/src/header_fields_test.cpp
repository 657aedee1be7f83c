#include "mqkit/protocol/header_fields.hpp"

#include <gtest/gtest.h>

namespace mqkit::protocol {
namespace {

TEST(HeaderListTest, CommaListsReadAndWriteRocketMqsForm) {
  EXPECT_EQ(comma_list("a=PUB,b=SUB"), (std::vector<std::string>{"a=PUB", "b=SUB"}));
  EXPECT_EQ(comma_list(""), std::vector<std::string>{});
  EXPECT_EQ(comma_list(",x,,y,"), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(comma_joined({"a=PUB", "b=SUB"}), "a=PUB,b=SUB");
  EXPECT_EQ(comma_joined({}), "");
}

}  // namespace
}  // namespace mqkit::protocol
