// Thread names: every long-lived thread of mqkit (and of a plugin) names itself, so that
// `top -H`, `ps -L`, perf, gdb and /proc/<pid>/task/*/comm tell an operator which part of a
// broker is busy. Names follow RocketMQ's service names where one exists (ReputMessage,
// PullRequestHold, GroupCommit, ...); docs/threading.md lists them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace mqkit::plugin::v1 {

// Linux keeps 15 bytes of a thread's name.
inline constexpr std::size_t kMaxThreadNameLength = 15;

// Names the calling thread `name`, cut to kMaxThreadNameLength bytes. A name is a debugging
// aid: a failure is ignored.
void name_this_thread(std::string_view name) noexcept;
// Names the calling thread `name-index` (a pool's threads), keeping the index when the whole
// would be too long: the name is cut, not the number.
void name_this_thread(std::string_view name, std::size_t index) noexcept;
// The calling thread's name ("" if it cannot be read).
std::string this_thread_name();

}  // namespace mqkit::plugin::v1
