// AccessControl: the broker's ACL while it runs — the rules of the ACL file, the check every
// client request goes through, and the reload when the file changes (RocketMQ watches
// plain_acl.yml the same way: every 5 s, modification time first, then the content).
//
// Threads: check() runs on transport worker threads, reload_if_changed() on one periodic
// thread; the rules are swapped whole, so a check sees the old rules or the new ones.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "mqkit/acl/acl_rules.hpp"
#include "mqkit/plugin/v1/remoting_command.hpp"

namespace mqkit::acl {

inline constexpr std::chrono::seconds kAclFileCheckInterval{5};

class AccessControl {
 public:
  // Loads `file`; InvalidArgument naming file:line:column when it is not a valid ACL file.
  static plugin::v1::Result<std::shared_ptr<AccessControl>> load(std::filesystem::path file);

  // OK when allowed; otherwise PermissionDenied whose message ("AclException: ...") is the
  // remark the client gets.
  plugin::v1::Status check(const plugin::v1::RemotingCommand& request, std::string_view remote_address) const;

  // Takes the file's new content when it changed and is valid (true). A file that cannot be read
  // or does not validate is logged with the reason and the rules in force stay.
  bool reload_if_changed();

  // An admin request's change (acl_rules.hpp's acl_text_* functions): `edit` gets the file as it
  // is on disk now and returns its new text, which is written atomically and in force at once.
  // Nothing changes when the file on disk does not read, `edit` fails, or the write fails.
  using Edit = std::function<plugin::v1::Result<std::string>(const kernel::ConfigDocument&)>;
  plugin::v1::Status change(const Edit& edit);

  const std::filesystem::path& file() const noexcept { return file_; }
  // The rules in force (their version too).
  std::shared_ptr<const AclRules> rules() const;

 private:
  struct Snapshot {
    std::filesystem::file_time_type modified{};
    std::string content;
  };
  explicit AccessControl(std::filesystem::path file) : file_(std::move(file)) {}
  // The file's content and modification time.
  plugin::v1::Result<Snapshot> read_text() const;
  // The file's rules and what they were read from.
  plugin::v1::Result<std::pair<AclRules, Snapshot>> read() const;
  // The text's rules, `modified` the file's time.
  plugin::v1::Result<std::pair<AclRules, Snapshot>> rules_of(std::string content,
                                                             std::filesystem::file_time_type modified) const;

  void put_in_force(std::shared_ptr<const AclRules> rules);

  std::filesystem::path file_;
  // Not std::atomic<std::shared_ptr>: GCC 12's load() releases its lock bit with a relaxed store,
  // so a load is not ordered before the next store's write (ThreadSanitizer reports it).
  mutable std::mutex rules_mutex_;
  std::shared_ptr<const AclRules> rules_;  // under rules_mutex_
  std::mutex file_mutex_;  // one reload or change at a time
  Snapshot loaded_;        // under file_mutex_
};

}  // namespace mqkit::acl
