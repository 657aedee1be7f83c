// ChildProcess: starts an mqkit binary for integration tests, reads its "ready" line from
// standard output, and stops it by PID (SIGTERM, then SIGKILL) when the test is done. Standard
// error goes to a log file named after the process, kept for failure diagnosis.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::testing {

class ChildProcess {
 public:
  // Starts `binary` (a name in MQKIT_BIN_DIR or a path) with `args`.
  static plugin::v1::Result<ChildProcess> spawn(const std::string& binary, const std::vector<std::string>& args,
                                                const std::string& log_name);

  ChildProcess() = default;  // no process
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();

  // Waits for a stdout line "<anything> ready on port <N>" and returns N.
  plugin::v1::Result<int> wait_ready(std::chrono::milliseconds timeout = std::chrono::seconds(20));

  pid_t pid() const noexcept { return pid_; }
  bool running();
  // SIGTERM and wait (up to `grace`), then SIGKILL. Returns the exit status (or -signal).
  int stop(std::chrono::milliseconds grace = std::chrono::seconds(10));
  // SIGKILL and reap.
  int kill();
  // Waits for the process to exit by itself; nullopt when it is still running at the timeout.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout);
  // Waits up to `limit` for a tool to end by itself, reading its output meanwhile so a long one
  // never fills the pipe, and SIGKILLs it when it does not: its exit status (or -signal), nullopt
  // when it had to be killed. output() then holds everything it printed.
  std::optional<int> run_to_end(std::chrono::milliseconds limit);
  // Everything the process wrote to standard output so far (reads what is pending).
  std::string output();
  void pause();   // SIGSTOP; returns once the process is stopped
  void resume();  // SIGCONT
  const std::filesystem::path& log_path() const noexcept { return log_path_; }
  std::string log_tail(std::size_t bytes = 4000) const;

 private:
  ChildProcess(pid_t pid, int stdout_fd, std::filesystem::path log_path)
      : pid_(pid), stdout_fd_(stdout_fd), log_path_(std::move(log_path)) {}
  int reap(std::chrono::milliseconds timeout);

  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  std::filesystem::path log_path_;
  std::string buffered_;
  std::optional<int> exit_status_;
};

// Polls `condition` every 100 ms until it holds or `limit` passed; its last value.
bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds limit = std::chrono::seconds(40));

// A fresh empty directory under the test temp dir.
std::filesystem::path fresh_directory(const std::string& name);

// A tool run to its end (ChildProcess::run_to_end): its exit status (-1 when it could not start
// or had to be killed at `limit`), its standard output, and the end of its standard error.
struct ToolRun {
  int code = -1;
  std::string out;
  std::string err;
};
ToolRun run_tool(const std::string& binary, const std::vector<std::string>& args, const std::string& log_name,
                 std::chrono::milliseconds limit = std::chrono::seconds(30));

}  // namespace mqkit::testing
