#include "transports/remoting/fuzz/frame_fuzz_entry.hpp"

#include <algorithm>
#include <limits>

#include "transports/remoting/codec/command_text.hpp"
#include "transports/remoting/codec/frame_codec.hpp"
#include "transports/remoting/codec/header_codec.hpp"
#include "transports/remoting/tests/codec_test_util.hpp"

namespace mqkit::plugins::transports::remoting {

namespace {

using v1::RemotingCommand;
using v1::SerializeType;

// Small enough that the fuzzer reaches the size check, large enough for real frames.
constexpr std::size_t kFuzzMaxFrame = 1024 * 1024;

std::optional<std::string> check_header_round_trip(SerializeType type, std::span<const std::uint8_t> bytes) {
  auto decoded = decode_header(type, bytes);
  if (!decoded.is_ok()) {
    if (decoded.status().message().empty()) return "header error without a message";
    return std::nullopt;
  }
  std::vector<std::uint8_t> header;
  if (auto status = append_header(*decoded, &header); !status.is_ok()) {
    return "decoded header does not re-encode: " + status.to_string() + " for " + describe(*decoded);
  }
  auto again = decode_header(type, header);
  if (!again.is_ok()) return "re-encoded header does not decode: " + again.status().to_string();
  if (!same_on_wire(*decoded, *again)) return "header changed: " + describe(*decoded) + " vs " + describe(*again);
  return std::nullopt;
}

std::optional<std::string> check_frame_round_trip(const RemotingCommand& command) {
  auto frame = encode_frame(command, kMaxLengthField);
  if (!frame.is_ok()) return "decoded frame does not re-encode: " + frame.status().to_string();
  FrameDecoder decoder(kMaxLengthField);
  decoder.feed(flatten(*frame));
  auto again = decoder.next();
  if (!again.is_ok() || !again->has_value()) return "re-encoded frame does not decode: " + again.status().to_string();
  if (!same_on_wire(command, **again)) return "frame changed: " + describe(command) + " vs " + describe(**again);
  if (decoder.buffered_bytes() != 0) return "re-encoded frame left bytes behind";
  return std::nullopt;
}

std::vector<std::uint8_t> frame_bytes(RemotingCommand command) {
  auto frame = encode_frame(std::move(command));
  return frame.is_ok() ? flatten(*frame) : std::vector<std::uint8_t>{};
}

}  // namespace

std::optional<std::string> check_fuzz_input(std::span<const std::uint8_t> data) {
  for (SerializeType type : {SerializeType::kJson, SerializeType::kRocketMq}) {
    if (auto broken = check_header_round_trip(type, data)) return broken;
  }
  FrameDecoder decoder(kFuzzMaxFrame);
  // Uneven pieces, chosen by the input itself, exercise every split point over time.
  std::size_t step = data.empty() ? 1 : 1 + data[0] % 61;
  for (std::size_t offset = 0; offset < data.size();) {
    const std::size_t n = std::min(step, data.size() - offset);
    decoder.feed(data.subspan(offset, n));
    offset += n;
    step = (step * 7) % 61 + 1;
    for (;;) {
      auto next = decoder.next();
      if (!next.is_ok()) {
        if (next.status().message().empty()) return "frame error without a message";
        return std::nullopt;
      }
      if (!next->has_value()) break;
      if (auto broken = check_frame_round_trip(**next)) return broken;
    }
  }
  return std::nullopt;
}

std::vector<std::vector<std::uint8_t>> fuzz_seed_inputs() {
  std::vector<std::vector<std::uint8_t>> seeds;
  for (SerializeType type : {SerializeType::kJson, SerializeType::kRocketMq}) {
    RemotingCommand route = RemotingCommand::request(105);
    route.serialize_type = type;
    route.language = v1::LanguageCode::kJava;
    route.opaque = 1;
    route.ext_fields.set("topic", std::string("T"));
    seeds.push_back(frame_bytes(route));

    RemotingCommand send = RemotingCommand::request(310);
    send.serialize_type = type;
    send.opaque = 77;
    for (const char* key : {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"}) send.ext_fields.set(key, std::string("1"));
    send.ext_fields.set("i", std::string("TAGS\x01tagA\x02KEYS\x01k\x02"));
    send.body.assign(64, 'm');
    seeds.push_back(frame_bytes(send));

    RemotingCommand busy = RemotingCommand::response_to(send, 2, std::string("[TIMEOUT_CLEAN_QUEUE]broker busy"));
    busy.flag |= RemotingCommand::kOnewayFlag;
    seeds.push_back(frame_bytes(busy));
  }
  // ali-ons: numbers and booleans in extFields, no remark, keys in its own order.
  seeds.push_back(testing::json_frame(
      R"({"code":15,"language":"JAVA","opaque":3,"flag":0,"version":121,)"
      R"("extFields":{"topic":"T","consumerGroup":"G","queueId":0,"commitOffset":-1,"unitMode":false}})"));
  seeds.push_back(testing::json_frame(R"({"code":"11","remark":null,"x":{"y":[1,2,{"z":null}]},"extFields":null})"));
  // Two frames back to back.
  std::vector<std::uint8_t> two = seeds[0];
  two.insert(two.end(), seeds[3].begin(), seeds[3].end());
  seeds.push_back(std::move(two));
  return seeds;
}

}  // namespace mqkit::plugins::transports::remoting
