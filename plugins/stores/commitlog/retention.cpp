#include "retention.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace mqkit::plugins::stores::commitlog {

namespace {

std::string ratio_text(double ratio) {
  char text[16];
  std::snprintf(text, sizeof text, "%.2f", ratio);
  return text;
}

}  // namespace

std::string Retention::disk_full_message() const {
  const std::string ratio = ratio_text(disk_used_ratio());
  // RocketMQ's remark names the commit log, consume queue and index disks; here they are one.
  return "disk is full [CL: " + ratio + " CQ: " + ratio + " INDEX: " + ratio + "]: " + options_.store_path +
         " is above disk_space_warning_level_ratio " + ratio_text(options_.disk_space_warning_level_ratio) +
         "; writes resume once use falls to " + ratio_text(options_.disk_space_clean_forcibly_ratio);
}

double Retention::check_disk() {
  auto usage = env_.disk_usage(options_.store_path);
  if (!usage.is_ok()) {
    log_.warn("retention: cannot measure disk use: " + usage.status().to_string());
    return -1;
  }
  const double ratio = usage->used_ratio();
  used_ratio_.store(ratio, std::memory_order_release);
  if (ratio > options_.disk_space_warning_level_ratio) {
    if (!disk_full_.exchange(true)) log_.error("retention: " + disk_full_message() + "; refusing writes");
  } else if (ratio <= options_.disk_space_clean_forcibly_ratio) {
    if (disk_full_.exchange(false)) {
      log_.info("retention: disk use " + ratio_text(ratio) + " is back under the limits; accepting writes again");
    }
  }
  return ratio;
}

bool Retention::is_delete_hour() const {
  const std::time_t seconds = static_cast<std::time_t>(env_.now_ms() / 1000);
  std::tm local{};
  localtime_r(&seconds, &local);
  return std::find(options_.delete_when_hours.begin(), options_.delete_when_hours.end(), local.tm_hour) !=
         options_.delete_when_hours.end();
}

int Retention::delete_commit_log_files(bool clean_at_once, const PauseFn& pause) {
  int deleted = 0;
  const auto files = commit_log_.files().snapshot();
  const std::int64_t reserved = options_.file_reserved_time.count();
  for (std::size_t i = 0; i + 1 < files.size(); ++i) {
    auto modified = env_.modified_time_ms(files[i]->path());
    if (!modified.is_ok()) {
      log_.warn("retention: " + modified.status().to_string());
      break;
    }
    const bool expired = env_.now_ms() >= *modified + reserved;
    if (!expired && !clean_at_once) break;
    v1::Status removed = commit_log_.files().remove_first(files[i]);
    if (!removed.is_ok()) {
      log_.error("retention: deleting " + files[i]->path() + ": " + removed.to_string());
      break;
    }
    log_.info("retention: deleted commit log file " + files[i]->path() +
              (expired ? " (expired)" : " (disk nearly full, deleted before expiry)"));
    if (++deleted >= kDeleteFilesBatchMax) break;
    if (pause && options_.delete_commit_log_files_interval.count() > 0 && i + 2 < files.size() &&
        !pause(options_.delete_commit_log_files_interval)) {
      break;
    }
  }
  return deleted;
}

RetentionPass Retention::run(bool manual, const PauseFn& pause) {
  std::lock_guard lock(pass_mutex_);
  RetentionPass pass;
  pass.disk_used_ratio = check_disk();
  const bool space_to_delete = pass.disk_used_ratio > options_.disk_max_used_space_ratio;
  const bool clean_immediately = pass.disk_used_ratio > options_.disk_space_clean_forcibly_ratio;
  if (manual || space_to_delete || is_delete_hour()) {
    pass.commit_log_files = delete_commit_log_files(options_.clean_file_forcibly_enable && clean_immediately, pause);
  }
  const std::int64_t min = commit_log_.min_offset();
  for (const auto& queue : queues_.all()) {
    auto deleted = queue->delete_expired_files(min);
    if (deleted.is_ok()) {
      pass.consume_queue_files += *deleted;
    } else {
      log_.error("retention: consume queue " + queue->dir() + ": " + deleted.status().to_string());
    }
  }
  if (index_ != nullptr) {
    auto deleted = index_->delete_expired_files(min);
    if (deleted.is_ok()) {
      pass.index_files = *deleted;
    } else {
      log_.error("retention: index: " + deleted.status().to_string());
    }
  }
  return pass;
}

}  // namespace mqkit::plugins::stores::commitlog
