// TransactionService: RocketMQ's transactional messages on the broker (TransactionalMessageService
// and its check service, rocketmq-facts §5.6; docs/transactions.md).
//
//   prepare()  the send path stores a producer's half message in RMQ_SYS_TRANS_HALF_TOPIC queue 0,
//              its real topic and queue in REAL_TOPIC / REAL_QID, invisible to consumers.
//   end()      END_TRANSACTION: COMMIT appends the message to its real topic (delayed if it
//              carries DELAY) and writes an op record; ROLLBACK writes only the op record.
//   check_once()  a master's check thread, every transaction_check_interval: half messages
//              older than transaction_time_out without an op record are appended again with one more
//              TRANSACTION_CHECK_TIMES and their producer group is asked CHECK_TRANSACTION_STATE;
//              after transaction_check_max checks a message moves to TRANS_CHECK_MAX_TIME_TOPIC.
//
// Op records decide: an op record (RMQ_SYS_TRANS_OP_HALF_TOPIC, tag "d") names the half queue
// offsets a transaction ended, and a transaction is ended at most once. A half message appended
// again for a check carries TRAN_PREPARED_QUEUE_OFFSET = the queue offset of its transaction's
// first half message (its origin); an op record names both the half message ended and its
// origin, so every copy of an ended transaction is known ended.
//
// Progress is the CID_RMQ_SYS_TRANS group's offsets on the half and op queues (consumer offset
// manager, persisted with every other group's): a restart resumes where the last pass stopped
// and reloads the op records not yet passed, and the 65536 before them so that a repeated END
// of a recent transaction is still refused.
//
// Threads: prepare() and end() run on transport worker threads, many at once; end() waits for
// its appends. The check thread alone walks the half queue. One mutex orders an END against a
// check of the same transaction; it is held while the check thread appends one half message.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "mqkit/broker/broker_context.hpp"
#include "mqkit/broker/send/outgoing_message.hpp"
#include "mqkit/plugin/v1/message_record.hpp"
#include "mqkit/protocol/transaction.hpp"

namespace mqkit::broker {

// What one check pass did.
struct CheckPassReport {
  std::int32_t checks_sent = 0;      // half messages appended again and asked about
  std::int32_t moved_to_check_max = 0;
  std::int32_t already_ended = 0;    // half messages passed because an op record ends them
  std::int64_t half_offset = 0;      // CID_RMQ_SYS_TRANS offsets after the pass
  std::int64_t op_offset = 0;
};

class TransactionService {
 public:
  // `context` must outlive the service.
  explicit TransactionService(BrokerContext& context);
  ~TransactionService();
  TransactionService(const TransactionService&) = delete;
  TransactionService& operator=(const TransactionService&) = delete;

  // Turns `message` (TRAN_MSG=true) into its half message: half topic queue 0, REAL_TOPIC and
  // REAL_QID, __transactionId__ = UNIQ_KEY, transaction type NOT_TYPE, without check bookkeeping
  // of the producer's own. Creates the half topic on first use; fails only when that is impossible.
  plugin::v1::Status prepare(OutgoingMessage& message);

  // END_TRANSACTION. COMMIT and ROLLBACK of a half message not ended yet; UNKNOWN does nothing.
  // Errors name the problem: no half message at that offset, another producer group, another
  // queue offset, an END already made (AlreadyExists), a failed append.
  plugin::v1::Status end(const protocol::transaction::EndTransactionHeader& request);

  // Loads the op records from CID_RMQ_SYS_TRANS's op offset on (once the commit log is
  // dispatched, at most 30 s; a read failure is logged, not fatal) and starts the check thread
  // (first pass one interval after start). Call once the store has recovered and the dispatch
  // pipeline runs. start_check_thread = false loads only (tests drive check_once()).
  void start(bool start_check_thread = true);
  // Joins the check thread. Idempotent.
  void stop();

  // One check pass now; bounded in records and time. The check thread calls it every interval;
  // tests that did not start the thread call it themselves (never two passes at once).
  CheckPassReport check_once();

 private:
  // One half message met by a check pass, and what to do about it.
  enum class Step { kNext, kStop };

  void run();
  Step examine(const plugin::v1::RecordView& record, const plugin::v1::StoredSlice& slice, std::int64_t pass_start,
               CheckPassReport& report);
  void load_op_records();
  // Reads the op records [from, to) into ended_ (and op_records_ when `pending`: not passed by
  // the op offset yet); returns where reading stopped.
  std::int64_t read_op_records(std::int64_t from, std::int64_t to, std::int64_t keep_until, bool pending);
  // Moves the op offset past op records whose transactions no half message can name again.
  std::int64_t advance_op_offset(std::int64_t half_offset);
  void send_check(std::int64_t copy_commit_offset);
  plugin::v1::Status move_to_check_max_topic(const plugin::v1::RecordView& record, const plugin::v1::StoredSlice& slice,
                                             std::int64_t checks);
  plugin::v1::Result<std::int64_t> write_op_record(std::int32_t half_queue_id, const std::string& offsets);
  plugin::v1::Status store_commit(const plugin::v1::RecordView& half, const plugin::v1::StoredSlice& slice);
  bool is_ended_locked(std::int64_t origin) const;
  std::int64_t half_end_locked() const;
  std::int64_t now() const;
  bool stopping() const;

  BrokerContext& context_;
  std::thread thread_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;  // guarded by mutex_
  // Origin half offset of each ended transaction → the half queue offset below which every copy
  // of it lies (the queue's end when it was ended). Guarded by mutex_.
  std::map<std::int64_t, std::int64_t> ended_;
  std::set<std::int64_t> ending_;  // origins whose END is being stored; guarded by mutex_
  // Op records from the op offset on: op queue offset → the half offsets it names.
  std::map<std::int64_t, std::vector<std::int64_t>> op_records_;  // guarded by mutex_
  std::int64_t op_end_ = 0;         // guarded by mutex_: queue offset after the last op record known
  std::int64_t copies_end_ = 0;     // guarded by mutex_: queue offset after the last half copy appended
};

}  // namespace mqkit::broker
