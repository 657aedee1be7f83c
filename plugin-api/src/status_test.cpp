#include "mqkit/plugin/v1/status.hpp"

#include <gtest/gtest.h>

namespace mqkit::plugin::v1 {
namespace {

TEST(StatusTest, OkHasNoMessage) {
  Status s;
  EXPECT_TRUE(s.is_ok());
  EXPECT_EQ(s.code(), StatusCode::kOk);
  EXPECT_EQ(s.to_string(), "OK");
}

TEST(StatusTest, ErrorCarriesCodeAndMessage) {
  Status s = Status::not_found("plugin 'x'");
  EXPECT_FALSE(s.is_ok());
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.to_string(), "NotFound: plugin 'x'");
  EXPECT_EQ(s.with_context("loading").message(), "loading: plugin 'x'");
}

Result<int> half(int v) {
  if (v % 2) return Status::invalid_argument("odd");
  return v / 2;
}

Status use_assign(int v, int* out) {
  MQKIT_ASSIGN_OR_RETURN(*out, half(v));
  return Status::ok();
}

TEST(ResultTest, ValueAndErrorPaths) {
  EXPECT_EQ(*half(4), 2);
  EXPECT_EQ(half(3).status().code(), StatusCode::kInvalidArgument);
  int out = 0;
  EXPECT_TRUE(use_assign(8, &out).is_ok());
  EXPECT_EQ(out, 4);
  EXPECT_EQ(use_assign(5, &out).message(), "odd");
  EXPECT_EQ(half(3).value_or(-1), -1);
}

TEST(ResultDeathTest, ValueOfFailedResultAborts) {
  EXPECT_DEATH((void)half(3).value(), "value\\(\\) on a failed Result: InvalidArgument: odd");
}

}  // namespace
}  // namespace mqkit::plugin::v1
