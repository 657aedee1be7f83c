// RocketMQ 5.x timer messages (rocketmq-facts §5.5): the properties a producer sets to have a
// message delivered at an arbitrary time, the ones a broker stamps, and the system topic such
// messages wait in. Shared by the broker and the SDK so that each is spelled in one place.
#pragma once

#include <string>
#include <string_view>

#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::protocol::timer {

// Timer messages wait here, queue 0, with their real topic and queue in REAL_TOPIC / REAL_QID.
inline constexpr std::string_view kTopic = "rmq_sys_wheel_timer";

namespace property {
// Set by producers (MessageConst): when to deliver, as epoch milliseconds, or relative to the
// broker's clock at the send, in seconds or milliseconds. RocketMQ reads TIMER_DELAY_SEC first,
// then TIMER_DELAY_MS, then TIMER_DELIVER_MS.
inline constexpr std::string_view kDeliverMs = "TIMER_DELIVER_MS";
inline constexpr std::string_view kDelaySec = "TIMER_DELAY_SEC";
inline constexpr std::string_view kDelayMs = "TIMER_DELAY_MS";
// Set by the broker: the delivery time it settled on (rounded down to its precision); a message
// carrying it is never held again.
inline constexpr std::string_view kOutMs = "TIMER_OUT_MS";
// Set on the delivered copy: when the broker took the message in, and when it let it out.
inline constexpr std::string_view kEnqueueMs = "TIMER_ENQUEUE_MS";
inline constexpr std::string_view kDequeueMs = "TIMER_DEQUEUE_MS";
// On a deletion marker (RECALL_MESSAGE writes one): the waiting message it cancels, as
// delete_key() names it.
inline constexpr std::string_view kDeleteUniqueKey = "TIMER_DEL_UNIQKEY";
}  // namespace property

// What a producer needs to recall a timer message before its delivery (RocketMQ 5.3's
// RecallMessageHandle.HandleV1): the send answer's `recallHandle`, given back in RECALL_MESSAGE.
struct RecallHandle {
  std::string topic;        // the message's real topic
  std::string broker_name;  // the broker holding it
  std::string timestamp;    // its TIMER_OUT_MS + 1, as text (a marker for it lands in the same slot)
  std::string message_id;   // its UNIQ_KEY
  bool operator==(const RecallHandle&) const = default;
};
// URL-safe Base64 (with padding) of "v1 <topic> <broker> <timestamp> <id>", as Java writes it.
std::string encode(const RecallHandle& handle);
// InvalidArgument "recall handle is invalid" for anything else (padding may be left out).
plugin::v1::Result<RecallHandle> decode_recall_handle(std::string_view text);

// RocketMQ's TimerMessageStore.buildDeleteKey: a waiting message by its real topic and UNIQ_KEY.
inline std::string delete_key(std::string_view real_topic, std::string_view unique_key) {
  std::string key(real_topic);
  key.append(1, '+').append(unique_key);
  return key;
}

}  // namespace mqkit::protocol::timer
