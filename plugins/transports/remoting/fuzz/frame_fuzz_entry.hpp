// The fuzz entry shared by the libFuzzer target and the corpus test that runs under g++ in CI.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace mqkit::plugins::transports::remoting {

// Feeds `data` to the frame decoder in uneven pieces and both header decoders directly. Every
// command that decodes must re-encode and decode to the same command, and every error must have
// a message. Returns a description of the first broken invariant, or nullopt.
std::optional<std::string> check_fuzz_input(std::span<const std::uint8_t> data);

// Well-formed inputs of every shape the decoders know, for the corpus test.
std::vector<std::vector<std::uint8_t>> fuzz_seed_inputs();

}  // namespace mqkit::plugins::transports::remoting
