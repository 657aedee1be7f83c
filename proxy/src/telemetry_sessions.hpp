// The Telemetry streams of connected producers, by the topics they publish: where mqproxy sends
// a broker's check of an orphaned transaction (RecoverOrphanedTransactionCommand), so that the
// client that can tell how its local transaction ended answers it.
//
// Threads: any. A stream is written by its own call's thread (settings replies) and by the
// client's async thread (forwarded checks); a session's mutex keeps one write at a time, and
// close() guarantees no write after it returns.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>
#include <grpcpp/support/sync_stream.h>

#include "apache/rocketmq/v2/service.pb.h"

namespace mqkit::proxy {

namespace v2 = apache::rocketmq::v2;

class TelemetrySessions {
 public:
  using Stream = grpc::ServerReaderWriter<v2::TelemetryCommand, v2::TelemetryCommand>;

  class Session {
   public:
    explicit Session(Stream* stream) : stream_(stream) {}
    // False once closed or when the stream is broken.
    bool write(const v2::TelemetryCommand& command);

   private:
    friend class TelemetrySessions;
    std::mutex mutex_;
    Stream* stream_;  // nullptr once closed
  };

  std::shared_ptr<Session> open(Stream* stream);
  // The session's client publishes `topics` (brokers' names): checks of their transactions go to it.
  void publish(const std::shared_ptr<Session>& session, const std::vector<std::string>& topics);
  void close(const std::shared_ptr<Session>& session);
  // Writes `command` to a session publishing `topic`; false when none took it.
  bool send_to_publisher(const std::string& topic, const v2::TelemetryCommand& command);

 private:
  std::mutex mutex_;
  std::map<std::string, std::set<std::shared_ptr<Session>>> publishers_;
};

}  // namespace mqkit::proxy
