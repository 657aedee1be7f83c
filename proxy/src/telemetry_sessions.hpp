// The Telemetry streams of connected producers, by the topics they publish: where mqproxy sends
// a broker's check of an orphaned transaction (RecoverOrphanedTransactionCommand), so that the
// client that can tell how its local transaction ended answers it.
//
// Threads: any.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "apache/rocketmq/v2/service.pb.h"

namespace mqkit::proxy {

namespace v2 = apache::rocketmq::v2;

class TelemetrySessions {
 public:
  // Where commands to one client go: its Telemetry stream.
  class Session {
   public:
    virtual ~Session() = default;
    // Queues `command` to the client; false once the stream is closing or broken. Thread-safe.
    virtual bool write(const v2::TelemetryCommand& command) = 0;
  };

  // The session's client publishes `topics` (brokers' names): checks of their transactions go to it.
  void publish(const std::shared_ptr<Session>& session, const std::vector<std::string>& topics);
  // The session's stream is over: nothing goes to it any more.
  void close(const std::shared_ptr<Session>& session);
  // Writes `command` to a session publishing `topic`; false when none took it.
  bool send_to_publisher(const std::string& topic, const v2::TelemetryCommand& command);

 private:
  std::mutex mutex_;
  std::map<std::string, std::set<std::shared_ptr<Session>>> publishers_;
};

}  // namespace mqkit::proxy
