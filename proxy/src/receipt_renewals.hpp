// Deliveries the proxy keeps invisible while a push consumer consumes them (ReceiveMessage with
// auto_renew, as RocketMQ 5's push consumers receive; RocketMQ's ReceiptHandleManager): a
// delivery whose invisible time is about to end is renewed at the broker, which gives it a new
// receipt handle; the client keeps acking, nacking or dead-lettering with the handle it received,
// and the proxy uses the delivery's current one. The registry alone; the broker calls are the
// service's (messaging_service.cpp).
//
// Threads: any; one mutex. A delivery being renewed is not handed out until its renewal ended,
// so an ack never goes to the broker with a handle the renewal just replaced.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace mqkit::proxy {

struct RenewedDelivery {
  std::string client_id;
  std::string group;  // as brokers name it
  std::string topic;
  std::string message_id;
  std::string client_handle;  // the receipt handle the client received
  std::string handle;         // the delivery's handle at the broker now
  std::int64_t visible_again_at_ms = 0;  // of `handle`
  std::int64_t received_at_ms = 0;
  std::int32_t renewals = 0;  // successful ones
  std::int32_t failures = 0;  // renewals failed in a row
};

// How long the delivery's `renewals`-th renewal keeps it invisible (RocketMQ's
// RenewStrategyPolicy: 1 min, 3 min, 5 min, 10 min, 30 min, then 1 h each time).
std::chrono::milliseconds renewal_duration(std::int32_t renewals);

class ReceiptRenewals {
 public:
  // Renewal failures in a row after which a delivery is left to come back (RocketMQ's maxRenewRetryTimes).
  static constexpr std::int32_t kMaxFailures = 3;

  void add(RenewedDelivery delivery);

  // The delivery of `group` and `message_id` the client's `handle` names, removed (the client acks
  // it, changes its invisible time or gives up on it): the handle to use at the broker. Waits for a
  // renewal in flight (at most `wait`). nullopt when no delivery here matches.
  std::optional<std::string> take(const std::string& group, const std::string& message_id, const std::string& handle,
                                  std::chrono::milliseconds wait = std::chrono::seconds(3));

  // Deliveries whose invisible time ends within `ahead_ms` of `now_ms`, marked as being renewed
  // (each must then be ended with renewed, failed or dropped).
  std::vector<RenewedDelivery> due(std::int64_t now_ms, std::int64_t ahead_ms);
  void renewed(const RenewedDelivery& delivery, std::string new_handle, std::int64_t visible_again_at_ms);
  // A renewal failed: the delivery is tried again at the next scan, and dropped (true) after kMaxFailures.
  bool failed(const RenewedDelivery& delivery);
  void drop(const RenewedDelivery& delivery);

  // Every delivery of a client that is gone, removed (those being renewed too: a renewal that
  // ends after finds nothing).
  std::vector<RenewedDelivery> take_client(const std::string& client_id);

  std::size_t size() const;

 private:
  using Key = std::tuple<std::string, std::string, std::string>;  // group, message id, client handle
  // Every ack looks up its handle here: by views, without copying them into a Key.
  using KeyView = std::tuple<std::string_view, std::string_view, std::string_view>;
  static Key key_of(const RenewedDelivery& delivery) {
    return {delivery.group, delivery.message_id, delivery.client_handle};
  }
  struct Entry {
    RenewedDelivery delivery;
    bool renewing = false;
  };
  // Ends a renewal of `delivery`; the entry when it is still here.
  Entry* end_renewal_locked(const RenewedDelivery& delivery);

  mutable std::mutex mutex_;
  std::condition_variable renewal_ended_;
  std::map<Key, Entry, std::less<>> entries_;
};

}  // namespace mqkit::proxy
