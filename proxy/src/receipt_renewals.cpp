#include "receipt_renewals.hpp"

#include <algorithm>
#include <array>

namespace mqkit::proxy {

std::chrono::milliseconds renewal_duration(std::int32_t renewals) {
  using std::chrono::hours;
  using std::chrono::minutes;
  static constexpr std::array<std::chrono::milliseconds, 6> kSteps = {minutes(1), minutes(3), minutes(5),
                                                                       minutes(10), minutes(30), hours(1)};
  return kSteps[static_cast<std::size_t>(std::clamp<std::int32_t>(renewals, 0, kSteps.size() - 1))];
}

void ReceiptRenewals::add(RenewedDelivery delivery) {
  std::lock_guard lock(mutex_);
  auto key = key_of(delivery);
  entries_.insert_or_assign(std::move(key), Entry{.delivery = std::move(delivery), .renewing = false});
}

std::optional<std::string> ReceiptRenewals::take(const std::string& group, const std::string& message_id,
                                                 const std::string& handle, std::chrono::milliseconds wait) {
  std::unique_lock lock(mutex_);
  const KeyView key{group, message_id, handle};
  (void)renewal_ended_.wait_for(lock, wait, [&] {
    const auto it = entries_.find(key);
    return it == entries_.end() || !it->second.renewing;
  });
  const auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  std::string current = std::move(it->second.delivery.handle);
  entries_.erase(it);
  return current;
}

std::vector<RenewedDelivery> ReceiptRenewals::due(std::int64_t now_ms, std::int64_t ahead_ms) {
  std::lock_guard lock(mutex_);
  std::vector<RenewedDelivery> out;
  for (auto& [key, entry] : entries_) {
    if (entry.renewing || entry.delivery.visible_again_at_ms - now_ms > ahead_ms) continue;
    entry.renewing = true;
    out.push_back(entry.delivery);
  }
  return out;
}

ReceiptRenewals::Entry* ReceiptRenewals::end_renewal_locked(const RenewedDelivery& delivery) {
  renewal_ended_.notify_all();
  const auto it = entries_.find(key_of(delivery));
  if (it == entries_.end()) return nullptr;
  it->second.renewing = false;
  return &it->second;
}

void ReceiptRenewals::renewed(const RenewedDelivery& delivery, std::string new_handle, std::int64_t visible_again_at_ms) {
  std::lock_guard lock(mutex_);
  if (Entry* entry = end_renewal_locked(delivery)) {
    entry->delivery.handle = std::move(new_handle);
    entry->delivery.visible_again_at_ms = visible_again_at_ms;
    ++entry->delivery.renewals;
    entry->delivery.failures = 0;
  }
}

bool ReceiptRenewals::failed(const RenewedDelivery& delivery) {
  std::lock_guard lock(mutex_);
  Entry* entry = end_renewal_locked(delivery);
  if (entry == nullptr) return true;
  if (++entry->delivery.failures < kMaxFailures) return false;
  entries_.erase(key_of(delivery));
  return true;
}

void ReceiptRenewals::drop(const RenewedDelivery& delivery) {
  std::lock_guard lock(mutex_);
  if (end_renewal_locked(delivery) != nullptr) entries_.erase(key_of(delivery));
}

std::vector<RenewedDelivery> ReceiptRenewals::take_client(const std::string& client_id) {
  std::lock_guard lock(mutex_);
  std::vector<RenewedDelivery> out;
  for (auto it = entries_.begin(); it != entries_.end();) {
    // One being renewed goes too: its renewal then ends finding nothing.
    if (it->second.delivery.client_id == client_id) {
      out.push_back(std::move(it->second.delivery));
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

std::size_t ReceiptRenewals::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

}  // namespace mqkit::proxy
