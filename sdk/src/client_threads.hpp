// Threads the SDK starts (task pools, loops, schedulers, the auto-batch timer) mark themselves,
// so that a ClientInstance whose last reference is dropped on one of them — a task capturing a
// consumer that the application destroyed meanwhile — is not destroyed there: its destructor
// joins those very threads, and a thread cannot join itself (std::terminate).
#pragma once

namespace mqkit::client {

// Call first thing on a thread the SDK starts.
void mark_client_thread() noexcept;
bool on_client_thread() noexcept;

}  // namespace mqkit::client
