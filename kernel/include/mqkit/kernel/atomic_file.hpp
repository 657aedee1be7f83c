// Small state files written so that a crash never leaves a half-written file: the content goes
// to <path>.tmp, is fsynced, the previous file is kept as <path>.bak, and the temp file is renamed
// over <path>. Reading falls back to <path>.bak when <path> is missing.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::kernel {

plugin::v1::Status write_file_atomically(const std::filesystem::path& path, std::string_view content);

// nullopt when neither the file nor its backup exists.
plugin::v1::Result<std::optional<std::string>> read_file_with_backup(const std::filesystem::path& path);

}  // namespace mqkit::kernel
