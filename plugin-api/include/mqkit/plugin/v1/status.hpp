// Status and Result<T>: how every fallible call across a module or plugin boundary reports
// failure. No exception ever crosses a plugin boundary; these values do.
//
// The OK status carries no allocation (the message lives only on the error path).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace mqkit::plugin::v1 {

enum class StatusCode : std::uint8_t {
  kOk = 0,
  kInvalidArgument,    // the caller's input is wrong (bad config value, malformed request)
  kNotFound,           // a named thing does not exist (plugin, topic, offset, file)
  kAlreadyExists,      // duplicate name or id
  kCorruption,         // stored or received bytes fail their checks (CRC, magic, length)
  kIoError,            // the operating system refused a file or socket operation
  kNotSupported,       // a valid request this implementation does not serve
  kUnavailable,        // temporarily cannot serve (shutting down, disk full, peer gone)
  kTimeout,            // a deadline passed before the operation completed
  kResourceExhausted,  // a configured bound was hit (queue full, memory budget)
  kPermissionDenied,   // refused by permission bits or policy
  kInternal,           // a bug: an invariant did not hold
};

std::string_view to_string(StatusCode code) noexcept;

class [[nodiscard]] Status {
 public:
  Status() noexcept = default;
  Status(StatusCode code, std::string message)
      : state_(code == StatusCode::kOk ? nullptr
                                       : std::make_shared<State>(State{code, std::move(message)})) {}

  static Status ok() noexcept { return {}; }
  static Status invalid_argument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
  static Status not_found(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status already_exists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
  static Status corruption(std::string m) { return {StatusCode::kCorruption, std::move(m)}; }
  static Status io_error(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
  static Status not_supported(std::string m) { return {StatusCode::kNotSupported, std::move(m)}; }
  static Status unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
  static Status timeout(std::string m) { return {StatusCode::kTimeout, std::move(m)}; }
  static Status resource_exhausted(std::string m) { return {StatusCode::kResourceExhausted, std::move(m)}; }
  static Status permission_denied(std::string m) { return {StatusCode::kPermissionDenied, std::move(m)}; }
  static Status internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool is_ok() const noexcept { return state_ == nullptr; }
  explicit operator bool() const noexcept { return is_ok(); }
  StatusCode code() const noexcept { return state_ ? state_->code : StatusCode::kOk; }
  const std::string& message() const noexcept;
  // "<Code>: <message>", or "OK".
  std::string to_string() const;
  // Prefixes the message with context ("opening commitlog: " + message); OK stays OK.
  Status with_context(std::string_view context) const;

 private:
  struct State {
    StatusCode code;
    std::string message;
  };
  std::shared_ptr<const State> state_;
};

// Result<T>: a value or a non-OK Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : data_(std::in_place_index<1>, std::move(status)) {  // NOLINT
    if (std::get<1>(data_).is_ok()) {
      std::fputs("mqkit: Result constructed from an OK Status without a value\n", stderr);
      std::abort();
    }
  }

  bool is_ok() const noexcept { return data_.index() == 0; }
  explicit operator bool() const noexcept { return is_ok(); }

  const Status& status() const noexcept {
    static const Status kOkStatus;
    return is_ok() ? kOkStatus : std::get<1>(data_);
  }
  T& value() & { return checked(); }
  const T& value() const& { return const_cast<Result*>(this)->checked(); }
  T&& value() && { return std::move(checked()); }
  T* operator->() { return &checked(); }
  const T* operator->() const { return &const_cast<Result*>(this)->checked(); }
  T& operator*() & { return checked(); }
  const T& operator*() const& { return const_cast<Result*>(this)->checked(); }

  T value_or(T fallback) const& { return is_ok() ? std::get<0>(data_) : std::move(fallback); }

 private:
  T& checked() {
    if (!is_ok()) {
      std::fprintf(stderr, "mqkit: value() on a failed Result: %s\n",
                   std::get<1>(data_).to_string().c_str());
      std::abort();
    }
    return std::get<0>(data_);
  }
  std::variant<T, Status> data_;
};

// Logs to stderr and aborts: for states that cannot happen unless mqkit has a bug.
[[noreturn]] void on_internal_error(std::string_view what) noexcept;

}  // namespace mqkit::plugin::v1

#define MQKIT_CONCAT_INNER_(a, b) a##b
#define MQKIT_CONCAT_(a, b) MQKIT_CONCAT_INNER_(a, b)

// Propagate a failed Status from an expression returning Status. (__COUNTER__ keeps names
// unique when the macro nests inside a lambda passed to another use of it.)
#define MQKIT_RETURN_IF_ERROR(expr) MQKIT_RETURN_IF_ERROR_IMPL_(MQKIT_CONCAT_(mqkit_status_, __COUNTER__), expr)
#define MQKIT_RETURN_IF_ERROR_IMPL_(name, expr) \
  do {                                          \
    ::mqkit::plugin::v1::Status name = (expr);  \
    if (!name.is_ok()) return name;             \
  } while (false)

// Evaluate a Result<T> expression; on failure return its Status, else bind the value to `lhs`.
#define MQKIT_ASSIGN_OR_RETURN(lhs, expr) \
  MQKIT_ASSIGN_OR_RETURN_IMPL_(MQKIT_CONCAT_(mqkit_result_, __COUNTER__), lhs, expr)
#define MQKIT_ASSIGN_OR_RETURN_IMPL_(name, lhs, expr) \
  auto name = (expr);                                 \
  if (!name.is_ok()) return name.status();            \
  lhs = std::move(name).value()
