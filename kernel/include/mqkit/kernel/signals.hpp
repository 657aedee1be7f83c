// Graceful shutdown on SIGINT/SIGTERM: the signals are blocked in every thread (call
// block_termination_signals() in main before any thread starts) and one waiter receives them
// synchronously, so no async-signal-safety puzzles arise.
#pragma once

namespace mqkit::kernel {

// Blocks SIGINT and SIGTERM in the calling thread; threads created later inherit the mask.
void block_termination_signals();

// Waits until SIGINT or SIGTERM arrives and returns its number.
int wait_for_termination_signal();

}  // namespace mqkit::kernel
