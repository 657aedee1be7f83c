// Header encodings: the golden bytes of rocketmq-facts.md §1.2/§1.4, the coercions third-party
// clients rely on, round trips, and every malformed input the decoders must refuse.
#include <gtest/gtest.h>

#include <string>

#include "codec_test_util.hpp"
#include "transports/remoting/codec/command_text.hpp"
#include "transports/remoting/codec/frame_codec.hpp"
#include "transports/remoting/codec/header_codec.hpp"

namespace mqkit::plugins::transports::remoting::testing {
namespace {

using v1::LanguageCode;
using v1::RemotingCommand;
using v1::SerializeType;
using v1::StatusCode;

// GET_ROUTEINFO_BY_TOPIC for topic "T", as a Java 4.9.4 client sends it.
RemotingCommand route_request(SerializeType type) {
  RemotingCommand c = RemotingCommand::request(105);
  c.language = LanguageCode::kJava;
  c.version = 401;
  c.opaque = 1;
  c.serialize_type = type;
  c.ext_fields.set("topic", std::string("T"));
  return c;
}

constexpr std::string_view kGoldenJson =
    R"({"code":105,"extFields":{"topic":"T"},"flag":0,"language":"JAVA","opaque":1,)"
    R"("serializeTypeCurrentRPC":"JSON","version":401})";
constexpr std::string_view kGoldenBinaryFrame =
    "00000025 01000021 0069 00 0191 00000001 00000000 00000000 0000000c 0005 746f706963 00000001 54";

Bytes encoded(RemotingCommand c) {
  auto frame = encode_frame(std::move(c));
  EXPECT_TRUE(frame.is_ok()) << frame.status().to_string();
  return frame.is_ok() ? flatten(*frame) : Bytes{};
}

RemotingCommand decode_json(std::string_view header) {
  auto decoded = decode_json_header(bytes_of(header));
  EXPECT_TRUE(decoded.is_ok()) << decoded.status().to_string();
  return decoded.is_ok() ? std::move(decoded).value() : RemotingCommand{};
}

std::string json_error(std::string_view header) {
  auto decoded = decode_json_header(bytes_of(header));
  EXPECT_FALSE(decoded.is_ok()) << header;
  if (decoded.is_ok()) return {};
  EXPECT_EQ(decoded.status().code(), StatusCode::kCorruption);
  return decoded.status().message();
}

std::string binary_error(const Bytes& header) {
  auto decoded = decode_binary_header(header);
  EXPECT_FALSE(decoded.is_ok());
  if (decoded.is_ok()) return {};
  EXPECT_EQ(decoded.status().code(), StatusCode::kCorruption);
  return decoded.status().message();
}

void expect_same(const RemotingCommand& actual, const RemotingCommand& expected) {
  EXPECT_TRUE(same_on_wire(actual, expected)) << "actual:   " << describe(actual) << "\nexpected: "
                                              << describe(expected);
}

// --- golden vectors ---------------------------------------------------------------------------

TEST(GoldenBytes, JsonRequestMatchesTheFactsExample) {
  Bytes expected = from_hex("0000007f 0000007b");
  const Bytes header = bytes_of(kGoldenJson);
  expected.insert(expected.end(), header.begin(), header.end());
  EXPECT_EQ(encoded(route_request(SerializeType::kJson)), expected);
}

TEST(GoldenBytes, BinaryRequestMatchesTheFactsExample) {
  EXPECT_EQ(encoded(route_request(SerializeType::kRocketMq)), from_hex(kGoldenBinaryFrame));
}

TEST(GoldenBytes, BothExamplesDecodeToTheSameCommand) {
  FrameDecoder decoder;
  Bytes stream = from_hex("0000007f 0000007b");
  const Bytes header = bytes_of(kGoldenJson);
  stream.insert(stream.end(), header.begin(), header.end());
  const Bytes binary = from_hex(kGoldenBinaryFrame);
  stream.insert(stream.end(), binary.begin(), binary.end());
  decoder.feed(stream);

  auto json = decoder.next();
  ASSERT_TRUE(json.is_ok() && json->has_value()) << json.status().to_string();
  expect_same(**json, route_request(SerializeType::kJson));
  auto bin = decoder.next();
  ASSERT_TRUE(bin.is_ok() && bin->has_value()) << bin.status().to_string();
  expect_same(**bin, route_request(SerializeType::kRocketMq));
  EXPECT_EQ(decoder.buffered_bytes(), 0u);
}

TEST(GoldenBytes, JsonResponseCarriesNumbersAndAResponseFlag) {
  RemotingCommand request = route_request(SerializeType::kJson);
  request.opaque = 42;
  RemotingCommand response = RemotingCommand::response_to(request, 17, std::string("No topic route info"));
  response.language = LanguageCode::kCpp;
  Bytes header;
  ASSERT_TRUE(append_header(response, &header).is_ok());
  EXPECT_EQ(std::string(header.begin(), header.end()),
            R"({"code":17,"flag":1,"language":"CPP","opaque":42,"remark":"No topic route info",)"
            R"("serializeTypeCurrentRPC":"JSON","version":401})");
}

TEST(GoldenBytes, ResponseUsesTheRequestSerialization) {
  const RemotingCommand request = route_request(SerializeType::kRocketMq);
  const Bytes frame = encoded(RemotingCommand::response_to(request, 0));
  ASSERT_GE(frame.size(), 8u);
  EXPECT_EQ(frame[4], 1) << "serialize type byte of the header word";
}

// --- JSON decoding ----------------------------------------------------------------------------

TEST(JsonHeader, CoercesNumberAndBooleanExtFieldsToText) {
  // As ali-ons sends SEND_MESSAGE_V2: JavaScript numbers and booleans stay JSON scalars.
  const RemotingCommand c = decode_json(
      R"({"code":310,"language":"JAVA","opaque":9,"flag":0,"version":121,"extFields":)"
      R"({"a":"PG","e":3,"g":1700000000000,"k":false,"t":true,"neg":-1,"x":1.5,"big":18446744073709551616,)"
      R"("n":null,"s":"text"}})");
  EXPECT_EQ(c.code, 310);
  EXPECT_EQ(c.version, 121);
  EXPECT_EQ(c.opaque, 9);
  EXPECT_EQ(c.ext_fields.get("a"), "PG");
  EXPECT_EQ(c.ext_fields.get("e"), "3");
  EXPECT_EQ(c.ext_fields.get("g"), "1700000000000");
  EXPECT_EQ(c.ext_fields.get("k"), "false");
  EXPECT_EQ(c.ext_fields.get("t"), "true");
  EXPECT_EQ(c.ext_fields.get("neg"), "-1");
  EXPECT_EQ(c.ext_fields.get("x"), "1.5");
  EXPECT_EQ(c.ext_fields.get("big"), "18446744073709551616");
  EXPECT_EQ(c.ext_fields.get("n"), std::nullopt) << "null means absent";
  EXPECT_EQ(c.ext_fields.get("s"), "text");
  EXPECT_EQ(c.ext_fields.get_int("g").value(), 1700000000000);
  EXPECT_FALSE(c.ext_fields.get_bool("k", true));
}

TEST(JsonHeader, KeysInAnyOrderAndUnknownKeysAreIgnored) {
  const RemotingCommand c = decode_json(
      R"({"version":401,"nsd":false,"future":{"deep":[1,{"x":[]}]},"opaque":-5,"extFields":{"topic":"T"},)"
      R"("serializeTypeCurrentRPC":"JSON","flag":3,"language":"GO","code":"105","list":[1,2]})");
  EXPECT_EQ(c.code, 105) << "a numeric string is accepted, as fastjson does";
  EXPECT_EQ(c.opaque, -5);
  EXPECT_EQ(c.flag, 3);
  EXPECT_TRUE(c.is_response());
  EXPECT_TRUE(c.is_oneway());
  EXPECT_EQ(c.language, LanguageCode::kGo);
  EXPECT_EQ(c.ext_fields.get("topic"), "T");
  EXPECT_EQ(c.ext_fields.size(), 1u);
  EXPECT_EQ(c.serialize_type, SerializeType::kJson);
}

TEST(JsonHeader, RemarkIsOptional) {
  EXPECT_EQ(decode_json(R"({"code":0})").remark, std::nullopt);
  EXPECT_EQ(decode_json(R"({"code":0,"remark":null})").remark, std::nullopt);
  EXPECT_EQ(decode_json(R"({"code":0,"remark":""})").remark, "");
  EXPECT_EQ(decode_json(R"({"code":1,"remark":"boom \"quoted\" \u00e9"})").remark, "boom \"quoted\" \xc3\xa9");
}

TEST(JsonHeader, LanguageByNameOrdinalOrElseOther) {
  EXPECT_EQ(decode_json(R"({"code":0,"language":"CPP"})").language, LanguageCode::kCpp);
  EXPECT_EQ(decode_json(R"({"code":0,"language":"RUST"})").language, LanguageCode::kRust);
  EXPECT_EQ(decode_json(R"({"code":0,"language":"NODE_JS"})").language, LanguageCode::kOther);
  EXPECT_EQ(decode_json(R"({"code":0,"language":"java"})").language, LanguageCode::kOther);
  EXPECT_EQ(decode_json(R"({"code":0,"language":9})").language, LanguageCode::kGo);
  EXPECT_EQ(decode_json(R"({"code":0,"language":99})").language, LanguageCode::kOther);
  EXPECT_EQ(decode_json(R"({"code":0})").language, LanguageCode::kJava) << "Java's default";
}

TEST(JsonHeader, MissingFieldsTakeJavaDefaults) {
  const RemotingCommand c = decode_json(R"({"code":34})");
  EXPECT_EQ(c.opaque, 0);
  EXPECT_EQ(c.flag, 0);
  EXPECT_EQ(c.version, 0);
  EXPECT_TRUE(c.ext_fields.empty());
  EXPECT_TRUE(decode_json(R"({"code":34,"extFields":null})").ext_fields.empty());
  EXPECT_TRUE(decode_json(R"({"code":34,"extFields":{}})").ext_fields.empty());
}

TEST(JsonHeader, RefusesMalformedInput) {
  EXPECT_EQ(json_error(R"({"flag":0,"opaque":1})"), "JSON header: no 'code' field");
  EXPECT_EQ(json_error(R"({"code":null})"), "JSON header: no 'code' field");
  EXPECT_EQ(json_error(R"([1,2])"), "JSON header: the header is an array, not an object");
  EXPECT_EQ(json_error(R"("code")"), "JSON header: the header is not an object");
  EXPECT_EQ(json_error(R"({"code":1.5})"), "JSON header: field 'code' is not a 32-bit integer: 1.5");
  EXPECT_EQ(json_error(R"({"code":2147483648})"),
            "JSON header: field 'code' is not a 32-bit integer: 2147483648");
  EXPECT_EQ(json_error(R"({"code":true})"), "JSON header: field 'code' is not a 32-bit integer: true");
  EXPECT_EQ(json_error(R"({"code":1,"opaque":"x"})"), "JSON header: field 'opaque' is not a 32-bit integer: x");
  EXPECT_EQ(json_error(R"({"code":1,"flag":{}})"),
            "JSON header: field 'flag' holds an object, expected a 32-bit integer");
  EXPECT_EQ(json_error(R"({"code":1,"extFields":"a=b"})"), "JSON header: field 'extFields' is not an object: a=b");
  EXPECT_EQ(json_error(R"({"code":1,"extFields":[]})"),
            "JSON header: field 'extFields' holds an array, expected an object");
  EXPECT_EQ(json_error(R"({"code":1,"extFields":{"a":{"b":1}}})"),
            "JSON header: extFields value 'a' is an object, expected a string, number or boolean");
  EXPECT_EQ(json_error(R"({"code":1,"extFields":{"a":[1]}})"),
            "JSON header: extFields value 'a' is an array, expected a string, number or boolean");
  EXPECT_EQ(json_error(std::string(R"({"code":1,"x":)") + std::string(40, '[') + std::string(40, ']') + "}"),
            "JSON header: field 'x' nests deeper than 32 levels");
  EXPECT_EQ(json_error(R"({"code":1)"), "JSON header: malformed at byte 9: Missing a comma or '}' after an object member.");
  EXPECT_EQ(json_error(""), "JSON header: malformed at byte 0: The document is empty.");
  EXPECT_EQ(json_error(R"({"code":1} x)"), "JSON header: malformed at byte 11: The document root must not be followed by other values.");
  EXPECT_EQ(json_error("{\"code\":1,\"remark\":\"a\x01\"}"),
            "JSON header: malformed at byte 21: Invalid escape character in string.");
}

TEST(JsonHeader, DeepNestingIsRefusedWithoutRecursion) {
  // A megabyte of '[' inside an unknown key must fail fast, not exhaust the stack.
  const std::string header = R"({"code":1,"x":)" + std::string(1 << 20, '[');
  EXPECT_EQ(json_error(header), "JSON header: field 'x' nests deeper than 32 levels");
  EXPECT_EQ(json_error(std::string(1 << 20, '[')), "JSON header: the header is an array, not an object");
}

// --- binary decoding --------------------------------------------------------------------------

// The golden binary header (without its 8-byte frame prefix) with `tail` replacing the map.
Bytes binary_header(std::string_view remark_and_map_hex) {
  return from_hex("0069 00 0191 00000001 00000000 " + std::string(remark_and_map_hex));
}

TEST(BinaryHeader, DecodesRemarkAndSeveralEntries) {
  // remark "hi"; map {"a":"", "bc":"xyz"}
  auto c = decode_binary_header(binary_header("00000002 6869 00000012 0001 61 00000000 0002 6263 00000003 78797a"));
  ASSERT_TRUE(c.is_ok()) << c.status().to_string();
  EXPECT_EQ(c->remark, "hi");
  EXPECT_EQ(c->ext_fields.get("a"), "");
  EXPECT_EQ(c->ext_fields.get("bc"), "xyz");
  EXPECT_EQ(c->serialize_type, SerializeType::kRocketMq);
}

TEST(BinaryHeader, SignedFieldsAndUnknownLanguage) {
  auto c = decode_binary_header(from_hex("ffff 2a fffe ffffffff 00000001 00000000 00000000"));
  ASSERT_TRUE(c.is_ok()) << c.status().to_string();
  EXPECT_EQ(c->code, -1);
  EXPECT_EQ(c->language, LanguageCode::kOther);
  EXPECT_EQ(c->version, -2);
  EXPECT_EQ(c->opaque, -1);
  EXPECT_TRUE(c->is_response());
  EXPECT_EQ(c->remark, std::nullopt);
  EXPECT_TRUE(c->ext_fields.empty());
}

TEST(BinaryHeader, IgnoresBytesAfterTheMap) {
  auto c = decode_binary_header(binary_header("00000000 00000000 deadbeef"));
  EXPECT_TRUE(c.is_ok()) << c.status().to_string();
}

TEST(BinaryHeader, RefusesMalformedInput) {
  EXPECT_EQ(binary_error(from_hex("0069 00 0191 00000001")),
            "binary header: fixed part at offset 0 needs 17 bytes, 9 left");
  EXPECT_EQ(binary_error(binary_header("ffffffff 00000000")),
            "binary header: negative remark length -1 at offset 13");
  EXPECT_EQ(binary_error(binary_header("00000009 6869 00000000")),
            "binary header: remark length at offset 17 needs 9 bytes, 6 left");
  EXPECT_EQ(binary_error(binary_header("00000000 0000")),
            "binary header: extFields length at offset 17 needs 4 bytes, 2 left");
  EXPECT_EQ(binary_error(binary_header("00000000 80000000")),
            "binary header: negative extFields length -2147483648 at offset 17");
  EXPECT_EQ(binary_error(binary_header("00000000 00000010 0001 61")),
            "binary header: extFields length at offset 21 needs 16 bytes, 3 left");
  // Entries must stay inside the map's declared length.
  EXPECT_EQ(binary_error(binary_header("00000000 00000001 00 00")),
            "binary header: extFields key length at offset 21 needs 2 bytes, 1 left");
  EXPECT_EQ(binary_error(binary_header("00000000 00000002 8000")),
            "binary header: negative extFields key length -32768 at offset 21");
  EXPECT_EQ(binary_error(binary_header("00000000 00000004 0005 6162")),
            "binary header: extFields key length at offset 23 needs 5 bytes, 2 left");
  EXPECT_EQ(binary_error(binary_header("00000000 00000005 0001 61 0000 00000000")),
            "binary header: extFields value length at offset 24 needs 4 bytes, 2 left");
  EXPECT_EQ(binary_error(binary_header("00000000 00000007 0001 61 fffffff0")),
            "binary header: negative extFields value length -16 at offset 24");
  EXPECT_EQ(binary_error(binary_header("00000000 00000008 0001 61 00000002 78 7879")),
            "binary header: extFields value length at offset 28 needs 2 bytes, 1 left");
}

TEST(BinaryHeader, EncodingRefusesValuesItCannotRepresent) {
  RemotingCommand c = route_request(SerializeType::kRocketMq);
  c.code = 200050;  // a 5.x POP code: only JSON headers can carry it
  Bytes out;
  auto status = append_header(c, &out);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "binary header: code 200050 does not fit its 16-bit field");
  c.serialize_type = SerializeType::kJson;
  EXPECT_TRUE(append_header(c, &out).is_ok());

  c = route_request(SerializeType::kRocketMq);
  c.ext_fields.set(std::string(40000, 'k'), "v");
  EXPECT_EQ(append_header(c, &out).code(), StatusCode::kInvalidArgument);
}

// --- round trips ------------------------------------------------------------------------------

class RoundTrip : public ::testing::TestWithParam<SerializeType> {};

TEST_P(RoundTrip, EveryFieldSurvives) {
  RemotingCommand c = RemotingCommand::request(-32768);
  c.serialize_type = GetParam();
  c.language = LanguageCode::kRust;
  c.version = 32767;
  c.opaque = -2147483647 - 1;
  c.flag = RemotingCommand::kOnewayFlag;
  c.remark = std::string("line\nbreak \"q\" \\ \xe4\xb8\xad tab\t nul");
  c.remark->push_back('\0');
  c.ext_fields.set("topic", std::string("TopicTest"));
  c.ext_fields.set("", std::string("empty key"));
  c.ext_fields.set("properties", std::string("KEYS\x01k1\x02TAGS\x01tagA\x02"));
  c.ext_fields.set("ctl", std::string("\x1f\x7f", 2));
  c.body = {0, 1, 2, 0xff, 0x80};

  const Bytes wire = encoded(c);
  FrameDecoder decoder;
  decoder.feed(wire);
  auto decoded = decoder.next();
  ASSERT_TRUE(decoded.is_ok() && decoded->has_value()) << decoded.status().to_string();
  expect_same(**decoded, c);
}

TEST_P(RoundTrip, EmptyRemarkAndNoExtFields) {
  RemotingCommand c = RemotingCommand::request(11);
  c.serialize_type = GetParam();
  c.remark = "";
  FrameDecoder decoder;
  decoder.feed(encoded(c));
  auto decoded = decoder.next();
  ASSERT_TRUE(decoded.is_ok() && decoded->has_value()) << decoded.status().to_string();
  // The binary layout cannot tell an empty remark from none.
  EXPECT_EQ((*decoded)->remark, GetParam() == SerializeType::kJson ? std::optional<std::string>("")
                                                                    : std::optional<std::string>());
  EXPECT_TRUE((*decoded)->ext_fields.empty());
}

INSTANTIATE_TEST_SUITE_P(BothSerializations, RoundTrip,
                         ::testing::Values(SerializeType::kJson, SerializeType::kRocketMq),
                         [](const auto& test_param) { return test_param.param == SerializeType::kJson ? "Json" : "RocketMq"; });

}  // namespace
}  // namespace mqkit::plugins::transports::remoting::testing
