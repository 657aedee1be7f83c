#include "child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

namespace mqkit::testing {

using plugin::v1::Result;
using plugin::v1::Status;
namespace fs = std::filesystem;

Result<ChildProcess> ChildProcess::spawn(const std::string& binary, const std::vector<std::string>& args,
                                         const std::string& log_name) {
  const std::string path = binary.find('/') == std::string::npos ? std::string(MQKIT_BIN_DIR) + "/" + binary : binary;
  const fs::path log_path = fs::path(::testing::TempDir()) / (log_name + ".log");
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return Status::io_error(std::string("pipe: ") + std::strerror(errno));
  const int log_fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) return Status::io_error("cannot open " + log_path.string());
  std::vector<std::string> argv_storage{path};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t test_pid = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) return Status::io_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    // A test process that crashes runs no destructor: its servers must not outlive it. The signal
    // follows the forking thread, which is gtest's main thread for every test here.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != test_pid) ::_exit(127);  // the test died before the line above
    ::dup2(pipe_fds[1], STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    // The test runner may block signals; the child must see SIGTERM.
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execv(path.c_str(), argv.data());
    std::fprintf(stderr, "exec %s: %s\n", path.c_str(), std::strerror(errno));
    ::_exit(127);
  }
  ::close(pipe_fds[1]);
  ::close(log_fd);
  return ChildProcess(pid, pipe_fds[0], log_path);
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept { *this = std::move(other); }

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    if (pid_ > 0) kill();
    pid_ = std::exchange(other.pid_, -1);
    stdout_fd_ = std::exchange(other.stdout_fd_, -1);
    log_path_ = std::move(other.log_path_);
    buffered_ = std::move(other.buffered_);
    exit_status_ = other.exit_status_;
  }
  return *this;
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !exit_status_) kill();
  if (stdout_fd_ >= 0) ::close(stdout_fd_);
}

Result<int> ChildProcess::wait_ready(std::chrono::milliseconds timeout) {
  static const std::regex kReady(R"(ready on port (\d+))");
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    std::smatch m;
    if (std::regex_search(buffered_, m, kReady)) return std::stoi(m[1]);
    pollfd p{stdout_fd_, POLLIN, 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(1, left.count()))) <= 0) continue;
    char chunk[512];
    const ssize_t n = ::read(stdout_fd_, chunk, sizeof chunk);
    if (n <= 0) return Status::unavailable("process exited before it was ready; log:\n" + log_tail());
    buffered_.append(chunk, static_cast<std::size_t>(n));
  }
  return Status::timeout("process not ready after " + std::to_string(timeout.count()) + " ms; log:\n" + log_tail());
}

bool ChildProcess::running() {
  if (pid_ <= 0 || exit_status_) return false;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == pid_) {
    exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
    return false;
  }
  return true;
}

int ChildProcess::reap(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (running() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return exit_status_.value_or(INT32_MIN);
}

int ChildProcess::stop(std::chrono::milliseconds grace) {
  if (!running()) return exit_status_.value_or(INT32_MIN);
  ::kill(pid_, SIGCONT);
  ::kill(pid_, SIGTERM);
  const int status = reap(grace);
  if (status != INT32_MIN) return status;
  return kill();
}

int ChildProcess::kill() {
  if (!running()) return exit_status_.value_or(INT32_MIN);
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  return *exit_status_;
}

std::optional<int> ChildProcess::wait_exit(std::chrono::milliseconds timeout) {
  const int status = reap(timeout);
  if (status == INT32_MIN) return std::nullopt;
  return status;
}

std::optional<int> ChildProcess::run_to_end(std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::optional<int> code;
  while (!code && std::chrono::steady_clock::now() < deadline) {
    code = wait_exit(std::chrono::milliseconds(100));
    (void)output();
  }
  (void)output();
  if (!code) kill();
  return code;
}

std::string ChildProcess::output() {
  char chunk[4096];
  while (true) {
    pollfd p{stdout_fd_, POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0) break;
    const ssize_t n = ::read(stdout_fd_, chunk, sizeof chunk);
    if (n <= 0) break;
    buffered_.append(chunk, static_cast<std::size_t>(n));
  }
  return buffered_;
}

void ChildProcess::pause() {
  ::kill(pid_, SIGSTOP);
  // kill() only queues the stop: on a busy machine the child's threads run on (and answer
  // requests) until each is next scheduled. Wait, bounded, until the kernel reports it stopped.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  int status = 0;
  while (::waitpid(pid_, &status, WUNTRACED | WNOHANG) == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}
void ChildProcess::resume() { ::kill(pid_, SIGCONT); }

std::string ChildProcess::log_tail(std::size_t bytes) const {
  std::ifstream in(log_path_);
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str();
  return all.size() > bytes ? all.substr(all.size() - bytes) : all;
}

fs::path fresh_directory(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("mqkit-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return condition();
}

ToolRun run_tool(const std::string& binary, const std::vector<std::string>& args, const std::string& log_name,
                 std::chrono::milliseconds limit) {
  ToolRun run;
  auto child = ChildProcess::spawn(binary, args, log_name);
  if (!child) {
    run.err = child.status().to_string();
    return run;
  }
  run.code = child->run_to_end(limit).value_or(-1);
  run.out = child->output();
  run.err = child->log_tail();
  return run;
}

}  // namespace mqkit::testing
