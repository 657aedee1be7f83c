#include "mqkit/acl/access_control.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "mqkit/acl/access_validator.hpp"
#include "mqkit/kernel/atomic_file.hpp"
#include "mqkit/kernel/config_document.hpp"
#include "mqkit/kernel/logging.hpp"

namespace mqkit::acl {

using plugin::v1::Result;
using plugin::v1::Status;

Result<std::shared_ptr<AccessControl>> AccessControl::load(std::filesystem::path file) {
  std::shared_ptr<AccessControl> control(new AccessControl(std::move(file)));
  MQKIT_ASSIGN_OR_RETURN(auto loaded, control->read());
  control->put_in_force(std::make_shared<const AclRules>(std::move(loaded.first)));
  control->loaded_ = std::move(loaded.second);
  return control;
}

Result<AccessControl::Snapshot> AccessControl::read_text() const {
  std::error_code error;
  const auto modified = std::filesystem::last_write_time(file_, error);
  if (error) return Status::not_found("cannot open ACL file " + file_.string() + ": " + error.message());
  std::ifstream in(file_, std::ios::binary);
  if (!in) return Status::not_found("cannot open ACL file " + file_.string() + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return Snapshot{modified, std::move(text).str()};
}

Result<std::pair<AclRules, AccessControl::Snapshot>> AccessControl::read() const {
  MQKIT_ASSIGN_OR_RETURN(Snapshot snapshot, read_text());
  return rules_of(std::move(snapshot.content), snapshot.modified);
}

Result<std::pair<AclRules, AccessControl::Snapshot>> AccessControl::rules_of(std::string content,
                                                                          std::filesystem::file_time_type modified) const {
  MQKIT_ASSIGN_OR_RETURN(const auto document, kernel::ConfigDocument::parse(content, file_.string()));
  MQKIT_ASSIGN_OR_RETURN(AclRules rules, acl_rules_from(document));
  return std::pair{std::move(rules), Snapshot{modified, std::move(content)}};
}

Status AccessControl::change(const Edit& edit) {
  std::lock_guard lock(file_mutex_);
  MQKIT_ASSIGN_OR_RETURN(const Snapshot current, read_text());
  MQKIT_ASSIGN_OR_RETURN(const auto document, kernel::ConfigDocument::parse(current.content, file_.string()));
  MQKIT_RETURN_IF_ERROR(acl_rules_from(document).status());  // a file broken on disk is not edited
  MQKIT_ASSIGN_OR_RETURN(std::string text, edit(document));
  MQKIT_RETURN_IF_ERROR(kernel::write_file_atomically(file_, text));
  std::error_code error;
  MQKIT_ASSIGN_OR_RETURN(auto changed, rules_of(std::move(text), std::filesystem::last_write_time(file_, error)));
  auto rules = std::make_shared<const AclRules>(std::move(changed.first));
  kernel::logger("broker")->info("ACL file {} changed by an admin request: {} accounts, {} global white addresses",
                                 file_.string(), rules->accounts.size(), rules->global_white_remote_addresses.size());
  put_in_force(std::move(rules));
  loaded_ = std::move(changed.second);
  return Status::ok();
}

std::shared_ptr<const AclRules> AccessControl::rules() const {
  std::lock_guard lock(rules_mutex_);
  return rules_;
}

void AccessControl::put_in_force(std::shared_ptr<const AclRules> rules) {
  std::lock_guard lock(rules_mutex_);
  rules_.swap(rules);  // the parameter, now holding the old rules, is freed after the unlock
}

Status AccessControl::check(const plugin::v1::RemotingCommand& request, std::string_view remote_address) const {
  const std::shared_ptr<const AclRules> rules = this->rules();
  Status decision = validate(*rules, request, remote_address);
  if (decision.is_ok()) return decision;
  return Status::permission_denied("AclException: " + decision.message());
}

bool AccessControl::reload_if_changed() {
  std::lock_guard lock(file_mutex_);
  std::error_code error;
  // A missing file reads as the oldest time: its absence is reported once, not every check.
  const auto modified = std::filesystem::last_write_time(file_, error);
  if (modified == loaded_.modified) return false;
  auto log = kernel::logger("broker");
  auto fresh = read();
  if (!fresh) {
    log->error("ACL file changed but is refused, the rules loaded before stay in force: {}", fresh.status().message());
    loaded_.modified = modified;  // tried again once the file changes again
    return false;
  }
  const bool same = fresh->second.content == loaded_.content;
  loaded_ = std::move(fresh->second);
  if (same) return false;
  auto rules = std::make_shared<const AclRules>(std::move(fresh->first));
  log->info("ACL file {} reloaded: {} accounts, {} global white addresses", file_.string(), rules->accounts.size(),
            rules->global_white_remote_addresses.size());
  put_in_force(std::move(rules));
  return true;
}

}  // namespace mqkit::acl
