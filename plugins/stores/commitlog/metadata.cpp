#include "metadata.hpp"

#include <vector>

#include "mapped_file.hpp"

namespace mqkit::plugins::stores::commitlog {

v1::Status validate_metadata_name(std::string_view name) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string_view::npos ||
      name.find('\0') != std::string_view::npos) {
    return v1::Status::invalid_argument("metadata name '" + std::string(name) + "' is not a plain file name");
  }
  return v1::Status::ok();
}

bool looks_whole(std::string_view name, std::string_view content) {
  // An empty document is a value someone saved; only a visibly cut-off JSON document is not.
  if (content.empty() || !name.ends_with(".json")) return true;
  std::vector<char> open;
  bool in_string = false;
  bool escaped = false;
  for (const char c : content) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      open.push_back(c == '{' ? '}' : ']');
    } else if (c == '}' || c == ']') {
      if (open.empty() || open.back() != c) return false;
      open.pop_back();
    }
  }
  const auto last = content.find_last_not_of(" \t\r\n");
  return !in_string && open.empty() && last != std::string_view::npos && (content[last] == '}' || content[last] == ']');
}

v1::Status MetadataStore::save(std::string_view name, std::string_view content) {
  MQKIT_RETURN_IF_ERROR(validate_metadata_name(name));
  std::lock_guard lock(mutex_);
  const std::string path = join_path(dir_, name);
  MQKIT_RETURN_IF_ERROR(env_.create_dirs(dir_));
  MQKIT_RETURN_IF_ERROR(write_small_file(env_, path + ".tmp", content));
  auto previous = read_small_file(env_, path);
  if (previous.is_ok()) {
    MQKIT_RETURN_IF_ERROR(write_small_file(env_, path + ".bak", *previous));
  } else if (previous.status().code() != v1::StatusCode::kNotFound) {
    return previous.status();
  }
  MQKIT_RETURN_IF_ERROR(env_.rename(path + ".tmp", path));
  return env_.sync_dir(dir_);
}

v1::Result<std::optional<std::string>> MetadataStore::load(std::string_view name) {
  MQKIT_RETURN_IF_ERROR(validate_metadata_name(name));
  const std::string path = join_path(dir_, name);
  auto main = read_small_file(env_, path);
  if (main.is_ok() && looks_whole(name, *main)) return std::optional<std::string>(std::move(main).value());
  auto backup = read_small_file(env_, path + ".bak");
  const bool have_backup = backup.is_ok() && looks_whole(name, *backup);
  if (!main.is_ok() && main.status().code() == v1::StatusCode::kNotFound && !have_backup) {
    return std::optional<std::string>();
  }
  const std::string problem = main.is_ok() ? "looks truncated" : main.status().message();
  if (!have_backup) return v1::Status::corruption("metadata " + path + " " + problem + " and has no usable .bak copy");
  log_.warn("metadata " + path + " " + problem + "; using " + path + ".bak");
  return std::optional<std::string>(std::move(backup).value());
}

}  // namespace mqkit::plugins::stores::commitlog
