#include "mqkit/plugin/v1/thread_name.hpp"

#include <pthread.h>

#include <algorithm>
#include <cstdio>

namespace mqkit::plugin::v1 {

void name_this_thread(std::string_view name) noexcept {
  char buffer[kMaxThreadNameLength + 1];
  const std::size_t length = std::min(name.size(), kMaxThreadNameLength);
  std::copy_n(name.data(), length, buffer);
  buffer[length] = '\0';
  (void)::pthread_setname_np(::pthread_self(), buffer);
}

void name_this_thread(std::string_view name, std::size_t index) noexcept {
  char suffix[24];
  const int written = std::snprintf(suffix, sizeof suffix, "-%zu", index);
  const std::string_view number(suffix, static_cast<std::size_t>(std::clamp(written, 0, static_cast<int>(kMaxThreadNameLength))));
  char buffer[kMaxThreadNameLength + 1];
  const std::size_t kept = std::min(name.size(), kMaxThreadNameLength - number.size());
  std::copy_n(name.data(), kept, buffer);
  std::copy_n(number.data(), number.size(), buffer + kept);
  buffer[kept + number.size()] = '\0';
  (void)::pthread_setname_np(::pthread_self(), buffer);
}

std::string this_thread_name() {
  char buffer[kMaxThreadNameLength + 1] = {};
  if (::pthread_getname_np(::pthread_self(), buffer, sizeof buffer) != 0) return {};
  return buffer;
}

}  // namespace mqkit::plugin::v1
