#include "grpc_status.hpp"

namespace mqkit::proxy {

v2::Status make_status(v2::Code code, std::string message) {
  v2::Status status;
  status.set_code(code);
  status.set_message(std::move(message));
  return status;
}

v2::Status status_of_failure(const plugin::v1::Status& failure, v2::Code not_found) {
  using plugin::v1::StatusCode;
  const auto code = [&] {
    switch (failure.code()) {
      case StatusCode::kOk: return v2::OK;
      case StatusCode::kNotFound: return not_found;
      case StatusCode::kInvalidArgument: return v2::BAD_REQUEST;
      case StatusCode::kPermissionDenied: return v2::FORBIDDEN;
      case StatusCode::kResourceExhausted: return v2::TOO_MANY_REQUESTS;
      case StatusCode::kTimeout: return v2::PROXY_TIMEOUT;
      case StatusCode::kNotSupported: return v2::UNSUPPORTED;
      default: return v2::INTERNAL_SERVER_ERROR;
    }
  }();
  return make_status(code, failure.is_ok() ? "OK" : failure.message());
}

}  // namespace mqkit::proxy
