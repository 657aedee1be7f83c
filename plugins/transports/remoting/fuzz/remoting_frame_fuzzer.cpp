// libFuzzer target: arbitrary bytes into the remoting decoders (see frame_fuzz_entry.hpp).
#include <cstdio>
#include <cstdlib>

#include "transports/remoting/fuzz/frame_fuzz_entry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (auto broken = mqkit::plugins::transports::remoting::check_fuzz_input({data, size})) {
    std::fprintf(stderr, "remoting_frame_fuzzer: %s\n", broken->c_str());
    std::abort();
  }
  return 0;
}
