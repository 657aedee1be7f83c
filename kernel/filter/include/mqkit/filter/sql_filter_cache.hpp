// Compiled SQL92 filters by (consumer group, topic), so a subscription's expression is parsed
// once and not on every pull; a changed expression (a new subscription version) is compiled
// again, and a parse failure is remembered the same way so a bad expression costs one parse.
//
// Bounded: when `capacity` pairs are cached the cache starts over (pairs come from live
// subscriptions, so it refills with the ones in use). Thread-safe.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "mqkit/filter/sql_filter.hpp"

namespace mqkit::filter {

class SqlFilterCache {
 public:
  explicit SqlFilterCache(std::size_t capacity = 4096) : capacity_(capacity) {}

  plugin::v1::Result<SqlFilter> get(std::string_view group, std::string_view topic, std::string_view expression);

  std::size_t size() const;

 private:
  struct Entry {
    std::string expression;
    plugin::v1::Result<SqlFilter> filter;
  };

  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;  // key: group '\0' topic
};

}  // namespace mqkit::filter
