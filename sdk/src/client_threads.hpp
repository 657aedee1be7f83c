// Threads the SDK starts (task pools, loops, schedulers, the auto-batch timer) mark themselves,
// so that a ClientInstance whose last reference is dropped on one of them — a task capturing a
// consumer that the application destroyed meanwhile — is not destroyed there: its destructor
// joins those very threads, and a thread cannot join itself (std::terminate).
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

namespace mqkit::client {

// Call first thing on a thread the SDK starts. It also names the thread `name` (or
// `name-index`, a pool's thread), which is what `top -H` and a debugger show.
void mark_client_thread(std::string_view name) noexcept;
void mark_client_thread(std::string_view name, std::size_t index) noexcept;
bool on_client_thread() noexcept;

// Runs `destroy` on the process's reaper thread (started on first use). The reaper finishes
// whatever it was handed before the process exits (its static destructor joins it), so a
// destruction handed over just before exit still completes.
void destroy_on_reaper_thread(std::function<void()> destroy);

}  // namespace mqkit::client
