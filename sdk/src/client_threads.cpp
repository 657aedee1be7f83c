#include "client_threads.hpp"

namespace mqkit::client {

namespace {
thread_local bool client_thread = false;
}  // namespace

void mark_client_thread() noexcept { client_thread = true; }
bool on_client_thread() noexcept { return client_thread; }

}  // namespace mqkit::client
