#include "mqkit/filter/sql_filter_cache.hpp"

namespace mqkit::filter {

plugin::v1::Result<SqlFilter> SqlFilterCache::get(std::string_view group, std::string_view topic,
                                                  std::string_view expression) {
  std::string key;
  key.reserve(group.size() + 1 + topic.size());
  key.append(group).push_back('\0');
  key.append(topic);
  {
    std::lock_guard lock(mutex_);
    const auto found = entries_.find(key);
    if (found != entries_.end() && found->second.expression == expression) return found->second.filter;
  }
  // Compiled outside the lock: two pulls racing on a new expression both compile, harmlessly.
  plugin::v1::Result<SqlFilter> filter = SqlFilter::compile(expression);
  std::lock_guard lock(mutex_);
  if (entries_.size() >= capacity_ && entries_.find(key) == entries_.end()) entries_.clear();
  entries_.insert_or_assign(std::move(key), Entry{std::string(expression), filter});
  return filter;
}

std::size_t SqlFilterCache::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

}  // namespace mqkit::filter
