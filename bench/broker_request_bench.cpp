// The broker's request path for one send, end to end inside the process: a SEND_MESSAGE_V2
// frame is decoded (the transport's codec), handled by the send processor (validation, record
// encoding, store append through the store plugin) and the response is encoded back into a
// frame. No sockets: this measures what the broker itself spends per message. The codec-only
// loop (decode + encode an answer, no processing) runs in the same binary as the ratio's base.
//
//   build/release/bin/broker_request_bench [--benchmark_repetitions=3]
#include <benchmark/benchmark.h>

#include "mqkit/broker/send/send_message_processor.hpp"
#include "mqkit/broker/testing/broker_harness.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/codes.hpp"
#include "transports/remoting/codec/frame_codec.hpp"

namespace {

namespace v1 = mqkit::plugin::v1;
namespace codec = mqkit::plugins::transports::remoting;

// A channel that encodes every response into a frame, as the transport would before writing.
class EncodingChannel final : public v1::Channel {
 public:
  std::uint64_t id() const noexcept override { return 1; }
  std::string remote_address() const noexcept override { return "127.0.0.1:50000"; }
  std::string local_address() const noexcept override { return "127.0.0.1:10911"; }
  bool is_open() const noexcept override { return true; }
  v1::Status send(v1::RemotingCommand command) noexcept override {
    auto frame = codec::encode_frame(std::move(command));
    if (!frame) return frame.status();
    bytes_ += frame->size();
    ++responses_;
    return v1::Status::ok();
  }
  void invoke(v1::RemotingCommand, std::chrono::milliseconds, v1::ResponseCallback done) noexcept override {
    done(v1::Status::not_supported("benchmark channel"));
  }
  void close() noexcept override {}
  std::uint64_t responses() const { return responses_; }

 private:
  std::uint64_t bytes_ = 0;
  std::uint64_t responses_ = 0;
};

// The header as Java clients send it by default (JSON) or as mqkit's SDK does (ROCKETMQ binary).
std::vector<std::uint8_t> send_frame(std::size_t body_size, bool binary_header) {
  auto request = v1::RemotingCommand::request(mqkit::protocol::request_code::kSendMessageV2);
  request.opaque = 1;
  request.serialize_type = binary_header ? v1::SerializeType::kRocketMq : v1::SerializeType::kJson;
  for (const auto& [k, v] : std::initializer_list<std::pair<const char*, std::string>>{
           {"a", "BenchProducer"}, {"b", "BenchTopic"}, {"c", "TBW102"}, {"d", "4"}, {"e", "0"}, {"f", "0"},
           {"g", "1700000000000"}, {"h", "0"},
           {"i", v1::encode_properties({{"TAGS", "TagA"}, {"KEYS", "k1"}, {"UNIQ_KEY", "0A0000010000000000000000000000AB"}})},
           {"j", "0"}, {"k", "false"}}) {
    request.ext_fields.set(k, v);
  }
  request.body.assign(body_size, 'x');
  return codec::flatten(codec::encode_frame(std::move(request)).value());
}

void BM_SendRequestPath(benchmark::State& state) {
  mqkit::broker::testing::BrokerHarness harness;
  mqkit::broker::SendMessageProcessor processor(harness.context());
  auto channel = std::make_shared<EncodingChannel>();
  const auto frame = send_frame(static_cast<std::size_t>(state.range(0)), state.range(1) != 0);
  codec::FrameDecoder decoder;
  for (auto _ : state) {
    decoder.feed(frame);
    auto request = decoder.next();
    if (!request || !*request) {
      state.SkipWithError("frame did not decode");
      break;
    }
    mqkit::broker::Responder responder(channel, **request);
    processor.process(std::move(**request), responder);
  }
  if (channel->responses() != static_cast<std::uint64_t>(state.iterations())) {
    state.SkipWithError("not every send was answered");
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_SendRequestPath)->ArgsProduct({{128, 1024}, {0, 1}})->ArgNames({"body", "binary"});

void BM_CodecOnly(benchmark::State& state) {
  auto channel = std::make_shared<EncodingChannel>();
  const auto frame = send_frame(static_cast<std::size_t>(state.range(0)), state.range(1) != 0);
  codec::FrameDecoder decoder;
  for (auto _ : state) {
    decoder.feed(frame);
    auto request = decoder.next();
    if (!request || !*request) {
      state.SkipWithError("frame did not decode");
      break;
    }
    auto response = v1::RemotingCommand::response_to(**request, 0);
    response.ext_fields.set("msgId", std::string("7F00000100002A9F0000000000000000"));
    response.ext_fields.set("queueId", std::string("0"));
    response.ext_fields.set("queueOffset", std::string("0"));
    (void)channel->send(std::move(response));
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_CodecOnly)->ArgsProduct({{128, 1024}, {0, 1}})->ArgNames({"body", "binary"});

}  // namespace

BENCHMARK_MAIN();
