#include "mqkit/acl/remote_address_pattern.hpp"

#include <gtest/gtest.h>

namespace mqkit::acl {
namespace {

RemoteAddressPattern pattern(std::string_view text) {
  auto parsed = RemoteAddressPattern::parse(text);
  EXPECT_TRUE(parsed.is_ok()) << text << ": " << parsed.status().to_string();
  return parsed.is_ok() ? std::move(parsed).value() : RemoteAddressPattern();
}

TEST(RemoteAddressPatternTest, BlankMatchesNobodyAndStarEverybody) {
  EXPECT_FALSE(pattern("").matches("127.0.0.1"));
  EXPECT_FALSE(pattern("  ").matches("127.0.0.1"));
  for (const char* all : {"*", "*.*.*.*", "*:*:*:*:*:*:*:*"}) {
    EXPECT_TRUE(pattern(all).matches("10.1.2.3")) << all;
    EXPECT_TRUE(pattern(all).matches("::1")) << all;
  }
}

TEST(RemoteAddressPatternTest, OneAddressAndLists) {
  EXPECT_TRUE(pattern("192.168.0.1").matches("192.168.0.1"));
  EXPECT_FALSE(pattern("192.168.0.1").matches("192.168.0.10"));
  EXPECT_TRUE(pattern("::1").matches("0:0:0:0:0:0:0:1"));
  const auto list = pattern("192.168.0.1, 10.0.0.2");
  EXPECT_TRUE(list.matches("10.0.0.2"));
  EXPECT_FALSE(list.matches("10.0.0.3"));
  const auto braces = pattern("192.168.1.{1,2,3}");
  EXPECT_TRUE(braces.matches("192.168.1.3"));
  EXPECT_FALSE(braces.matches("192.168.1.4"));
  EXPECT_FALSE(braces.matches("192.168.2.1"));
}

TEST(RemoteAddressPatternTest, RangesInOnePart) {
  const auto star = pattern("192.168.0.*");
  EXPECT_TRUE(star.matches("192.168.0.0"));
  EXPECT_TRUE(star.matches("192.168.0.255"));
  EXPECT_FALSE(star.matches("192.168.1.5"));
  const auto dash = pattern("192.168.1.1-100");
  EXPECT_TRUE(dash.matches("192.168.1.1"));
  EXPECT_TRUE(dash.matches("192.168.1.100"));
  EXPECT_FALSE(dash.matches("192.168.1.0"));
  EXPECT_FALSE(dash.matches("192.168.1.101"));
  const auto middle = pattern("10.0-5.*.*");
  EXPECT_TRUE(middle.matches("10.5.200.1"));
  EXPECT_FALSE(middle.matches("10.6.0.1"));
  EXPECT_FALSE(middle.matches("11.0.0.1"));
  EXPECT_TRUE(pattern("10.*.*.*").matches("10.9.9.9"));
  EXPECT_FALSE(pattern("10.*.*.*").matches("::1"));
}

TEST(RemoteAddressPatternTest, Ipv4MappedClientsMatchIpv4Patterns) {
  EXPECT_TRUE(pattern("192.168.0.*").matches("::ffff:192.168.0.7"));
  EXPECT_TRUE(pattern("192.168.0.7").matches("::ffff:192.168.0.7"));
}

TEST(RemoteAddressPatternTest, RefusesWhatItCannotMean) {
  const std::pair<const char*, const char*> cases[] = {
      {"192.168.1.1,2,3", "'2' is not an IPv4 or IPv6 address"},
      {"192.168.{1,2}.*", "a {a,b,c} list must be the last part of an IPv4 address (192.168.1.{1,2,3})"},
      {"192.168.0.256", "'192.168.0.256' is not an IPv4 or IPv6 address"},
      {"192.168.*.5", "only '*' may follow a range (192.168.1-5.*)"},
      {"192.168.1.100-1", "'100-1' is not a range low-high of numbers from 0 to 255"},
      {"192.168.1.1-300", "'1-300' is not a range low-high of numbers from 0 to 255"},
      {"192.168.*", "an IPv4 range has four parts (192.168.0.*, 10.0.1-100.*)"},
      {"*.168.0.1", "the first part must be a number (only '*' alone means everybody)"},
      {"192.168.01.*", "'01' is not a number from 0 to 255"},
      {"fe80::*", "IPv6 ranges are not supported"},
      {"localhost", "'localhost' is not an IPv4 or IPv6 address"},
  };
  for (const auto& [text, why] : cases) {
    auto parsed = RemoteAddressPattern::parse(text);
    ASSERT_FALSE(parsed.is_ok()) << text;
    EXPECT_EQ(parsed.status().message(), "white address '" + std::string(text) + "': " + why);
  }
}

TEST(RemoteAddressPatternTest, HostOfATransportAddress) {
  EXPECT_EQ(host_of("10.0.0.1:5000"), "10.0.0.1");
  EXPECT_EQ(host_of("[::1]:5000"), "::1");
  EXPECT_EQ(host_of("::1"), "::1");
  EXPECT_EQ(host_of("10.0.0.1"), "10.0.0.1");
}

}  // namespace
}  // namespace mqkit::acl
