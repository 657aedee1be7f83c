#include "mqkit/plugin/v1/remoting_command.hpp"

#include <gtest/gtest.h>

namespace mqkit::plugin::v1 {
namespace {

TEST(ExtFieldsTest, IntegersAndBooleans) {
  ExtFields f;
  f.set("queueId", std::int64_t{3});
  f.set("unitMode", false);
  f.set("topic", std::string("T"));
  f.set("bad", std::string("12x"));
  EXPECT_EQ(*f.get_int("queueId"), 3);
  EXPECT_FALSE(f.get_bool("unitMode", true));
  EXPECT_EQ(f.get_int("missing").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(f.get_int("bad").status().message(), "header field 'bad' is not an integer: '12x'");
  f.set("queueId", std::int64_t{4});
  EXPECT_EQ(f.size(), 4u);
  EXPECT_EQ(*f.get_int("queueId"), 4);
  f.set("flag", std::string("TRUE"));
  EXPECT_TRUE(f.get_bool("flag"));
}

TEST(RemotingCommandTest, ResponseMirrorsRequest) {
  auto req = RemotingCommand::request(105);
  req.opaque = 77;
  req.serialize_type = SerializeType::kRocketMq;
  auto resp = RemotingCommand::response_to(req, 0);
  EXPECT_TRUE(resp.is_response());
  EXPECT_EQ(resp.opaque, 77);
  EXPECT_EQ(resp.serialize_type, SerializeType::kRocketMq);
}

TEST(LanguageCodeTest, NamesRoundTrip) {
  LanguageCode code;
  ASSERT_TRUE(parse_language("GO", &code));
  EXPECT_EQ(code, LanguageCode::kGo);
  EXPECT_EQ(to_string(LanguageCode::kJava), "JAVA");
  EXPECT_FALSE(parse_language("COBOL", &code));
}

}  // namespace
}  // namespace mqkit::plugin::v1
