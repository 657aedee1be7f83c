// AllocateMessageQueueConsistentHash: every consumer is placed on a hash ring at
// `virtual_nodes` points; a queue belongs to the consumer owning the first point at or after the
// queue's own hash (wrapping past the end). When a consumer joins or leaves, only the queues
// next to its points change owner, which keeps consumer-side caches and order warm.
//
// Bit-for-bit RocketMQ parity (ConsistentHashRouter with its default MD5Hash):
//   * virtual node key: "<clientId>-<i>", i = 0 .. virtual_nodes-1;
//   * queue key: MessageQueue.toString(), "MessageQueue [topic=T, brokerName=B, queueId=N]";
//   * hash: the first four MD5 digest bytes read big-endian, digest[0] most significant, as an
//     unsigned 32-bit value (Java folds them into a long: h <<= 8; h |= digest[i] & 0xFF);
//   * two virtual nodes on the same point: the one inserted later wins (TreeMap.put), inserting
//     clients in sorted order and each client's nodes in index order.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <openssl/evp.h>

#include "allocators/common/allocate_checks.hpp"
#include "mqkit/plugin/v1/plugin.hpp"

namespace mqkit::plugins::allocators {

class ConsistentHash final : public QueueAllocator {
 public:
  static Result<std::unique_ptr<ConsistentHash>> create(const ConfigValues& config,
                                                        Host& /*host*/) {
    // Fetched once: a FIPS-only OpenSSL has no MD5, and that should fail loading, not every
    // rebalance.
    Md5Ptr md5(EVP_MD_fetch(nullptr, "MD5", nullptr));
    if (md5 == nullptr) {
      return Status::not_supported("OpenSSL offers no MD5 implementation (FIPS-only provider?)");
    }
    return std::unique_ptr<ConsistentHash>(
        new ConsistentHash(std::move(md5), config.get_int("virtual_nodes")));
  }

  AllocateResult allocate(const AllocateContext& context) noexcept override {
    return allocate_checked(context, [&](std::size_t index) -> AllocateResult {
      MQKIT_ASSIGN_OR_RETURN(const Ring ring, build_ring(context));
      std::vector<MessageQueue> owned;
      for (const MessageQueue& queue : context.all_queues) {
        MQKIT_ASSIGN_OR_RETURN(const std::uint64_t position, ring_position(queue.to_string()));
        auto node = ring.lower_bound(position);
        if (node == ring.end()) node = ring.begin();
        if (node->second == index) owned.push_back(queue);
      }
      return owned;
    });
  }

 private:
  struct Md5Deleter {
    void operator()(EVP_MD* md) const noexcept { EVP_MD_free(md); }
  };
  using Md5Ptr = std::unique_ptr<EVP_MD, Md5Deleter>;
  // Ring point -> index of the owning client in all_client_ids.
  using Ring = std::map<std::uint64_t, std::size_t>;

  ConsistentHash(Md5Ptr md5, std::int64_t virtual_nodes)
      : md5_(std::move(md5)), virtual_nodes_(virtual_nodes) {}

  Result<Ring> build_ring(const AllocateContext& context) const {
    Ring ring;
    for (std::size_t client = 0; client < context.all_client_ids.size(); ++client) {
      const std::string prefix = context.all_client_ids[client] + "-";
      for (std::int64_t replica = 0; replica < virtual_nodes_; ++replica) {
        MQKIT_ASSIGN_OR_RETURN(const std::uint64_t position,
                               ring_position(prefix + std::to_string(replica)));
        ring.insert_or_assign(position, client);
      }
    }
    return ring;
  }

  Result<std::uint64_t> ring_position(std::string_view key) const {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int digest_length = 0;
    if (EVP_Digest(key.data(), key.size(), digest, &digest_length, md5_.get(), nullptr) != 1 ||
        digest_length < 4) {
      return Status::internal("OpenSSL MD5 digest failed");
    }
    return (std::uint64_t{digest[0]} << 24) | (std::uint64_t{digest[1]} << 16) |
           (std::uint64_t{digest[2]} << 8) | std::uint64_t{digest[3]};
  }

  Md5Ptr md5_;
  std::int64_t virtual_nodes_;
};

constexpr const char* kAliases[] = {
    "AllocateMessageQueueConsistentHash",
    "org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueConsistentHash",
    "CONSISTENT_HASH",
    nullptr,
};
constexpr ConfigField kSchema[] = {
    {.key = "virtual_nodes",
     .type = ValueType::kInt,
     .default_value = "10",
     .description = "Points each consumer occupies on the hash ring (RocketMQ virtualNodeCnt); "
                    "more points spread queues more evenly at the cost of rebalance CPU",
     .min = 1,
     .max = 10000},
};

}  // namespace mqkit::plugins::allocators

MQKIT_PLUGIN(QueueAllocator, mqkit::plugins::allocators::ConsistentHash, "consistent_hash",
             mqkit::plugins::allocators::kAliases, "1.0.0",
             "RocketMQ CONSISTENT_HASH: MD5 hash ring with virtual nodes per consumer",
             mqkit::plugins::allocators::kSchema)
