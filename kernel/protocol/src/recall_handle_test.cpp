#include <gtest/gtest.h>

#include "mqkit/protocol/timer.hpp"

namespace mqkit::protocol::timer {
namespace {

TEST(RecallHandleTest, EncodesAsJavasUrlSafeBase64) {
  const RecallHandle handle{"TopicA", "broker-a", "1700000000001", "AC110001000018B4AAC2"};
  // Base64.getUrlEncoder() of "v1 TopicA broker-a 1700000000001 AC110001000018B4AAC2".
  EXPECT_EQ(encode(handle), "djEgVG9waWNBIGJyb2tlci1hIDE3MDAwMDAwMDAwMDEgQUMxMTAwMDEwMDAwMThCNEFBQzI=");
  const auto decoded = decode_recall_handle(encode(handle));
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().to_string();
  EXPECT_EQ(*decoded, handle);
}

TEST(RecallHandleTest, UrlAlphabetAndMissingPaddingDecode) {
  // Bytes that encode to '-' and '_' in the URL alphabet.
  const RecallHandle handle{"T", "b>?", "1", "~~~"};
  const std::string encoded = encode(handle);
  EXPECT_NE(encoded.find_first_of("-_"), std::string::npos) << encoded;
  std::string unpadded = encoded;
  while (!unpadded.empty() && unpadded.back() == '=') unpadded.pop_back();
  EXPECT_EQ(decode_recall_handle(unpadded).value(), handle);
}

TEST(RecallHandleTest, AnythingElseIsInvalid) {
  for (const std::string_view bad : {"", "!!!!", "dj", "djIgVCBiIDEgaWQ=" /* "v2 T b 1 id" */,
                                     "djEgVCBiIDE=" /* "v1 T b 1" */, "ab+/"}) {
    const auto decoded = decode_recall_handle(bad);
    ASSERT_FALSE(decoded.is_ok()) << bad;
    EXPECT_EQ(decoded.status().message(), "recall handle is invalid");
  }
}

}  // namespace
}  // namespace mqkit::protocol::timer
