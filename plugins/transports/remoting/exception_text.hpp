// Turns the exception being handled into text for a Status or a log line. Interface methods
// are noexcept, so every boundary ends in `catch (...)` and reports through this.
#pragma once

#include <exception>
#include <string>

namespace mqkit::plugins::transports::remoting {

// Call only inside a catch block.
inline std::string current_exception_text() noexcept {
  try {
    throw;
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "non-standard exception";
  }
}

}  // namespace mqkit::plugins::transports::remoting
