#include "mqkit/protocol/acl_signature.hpp"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <algorithm>
#include <array>
#include <functional>
#include <memory>
#include <vector>

namespace mqkit::protocol::acl {

namespace v1 = plugin::v1;
using Field = std::pair<std::string, std::string>;

namespace {

using Part = std::span<const std::uint8_t>;

std::span<const std::uint8_t> bytes_of(std::string_view text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

// Hands `take` the pieces of the content in order, so a signature needs no copy of the body.
// Keys compare as unsigned bytes, which orders UTF-8 keys as Java's TreeMap orders them (by
// UTF-16 unit) except for characters above U+FFFF; RocketMQ's header names are ASCII.
void for_each_part(const v1::RemotingCommand& request, std::span<const std::string_view> excluded,
                   const std::function<void(Part)>& take) {
  std::vector<const Field*> fields;
  fields.reserve(request.ext_fields.size());
  for (const auto& field : request.ext_fields) {
    if (field.first == kSignature) continue;
    if (std::find(excluded.begin(), excluded.end(), field.first) != excluded.end()) continue;
    fields.push_back(&field);
  }
  std::sort(fields.begin(), fields.end(), [](const Field* a, const Field* b) { return a->first < b->first; });
  for (const Field* field : fields) take(bytes_of(field->second));
  if (!request.body.empty()) take(request.body);
  for (const auto& slice : request.body_slices) take(slice.bytes);
}

struct MacDeleter {
  void operator()(EVP_MAC* mac) const noexcept { EVP_MAC_free(mac); }
  void operator()(EVP_MAC_CTX* context) const noexcept { EVP_MAC_CTX_free(context); }
};

// HMAC is fetched once: the fetch walks the provider tables, a context per signature is cheap.
EVP_MAC* hmac() {
  static const std::unique_ptr<EVP_MAC, MacDeleter> fetched(EVP_MAC_fetch(nullptr, "HMAC", nullptr));
  return fetched.get();
}

v1::Result<std::string> hmac_sha1_base64(std::string_view secret_key,
                                         const std::function<void(const std::function<void(Part)>&)>& parts) {
  if (secret_key.empty()) return v1::Status::invalid_argument("the secret key is empty: nothing to sign with");
  if (hmac() == nullptr) return v1::Status::internal("libcrypto has no HMAC");
  std::unique_ptr<EVP_MAC_CTX, MacDeleter> context(EVP_MAC_CTX_new(hmac()));
  char digest[] = "SHA1";
  const std::array<OSSL_PARAM, 2> params = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                                            OSSL_PARAM_construct_end()};
  if (!context || EVP_MAC_init(context.get(), bytes_of(secret_key).data(), secret_key.size(), params.data()) != 1) {
    return v1::Status::internal("libcrypto could not start an HmacSHA1");
  }
  bool updated = true;
  parts([&](Part part) {
    if (updated && !part.empty()) updated = EVP_MAC_update(context.get(), part.data(), part.size()) == 1;
  });
  std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
  std::size_t length = 0;
  if (!updated || EVP_MAC_final(context.get(), mac.data(), &length, mac.size()) != 1) {
    return v1::Status::internal("libcrypto could not compute an HmacSHA1");
  }
  std::string encoded(4 * ((length + 2) / 3), '\0');
  const int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(encoded.data()), mac.data(),
                                      static_cast<int>(length));
  encoded.resize(static_cast<std::size_t>(written));
  return encoded;
}

}  // namespace

std::string content_to_sign(const v1::RemotingCommand& request, std::span<const std::string_view> excluded) {
  std::string content;
  for_each_part(request, excluded, [&](Part part) { content.append(part.begin(), part.end()); });
  return content;
}

v1::Result<std::string> signature_of(std::string_view content, std::string_view secret_key) {
  return hmac_sha1_base64(secret_key, [&](const std::function<void(Part)>& take) { take(bytes_of(content)); });
}

v1::Result<std::string> request_signature(const v1::RemotingCommand& request, std::string_view secret_key,
                                          std::span<const std::string_view> excluded) {
  return hmac_sha1_base64(secret_key,
                          [&](const std::function<void(Part)>& take) { for_each_part(request, excluded, take); });
}

v1::Status sign(v1::RemotingCommand& request, const Credentials& credentials) {
  if (credentials.empty()) return v1::Status::invalid_argument("no access key to sign with");
  request.ext_fields.set(std::string(kAccessKey), credentials.access_key);
  if (!credentials.security_token.empty()) {
    request.ext_fields.set(std::string(kSecurityToken), credentials.security_token);
  }
  MQKIT_ASSIGN_OR_RETURN(std::string signature, request_signature(request, credentials.secret_key));
  request.ext_fields.set(std::string(kSignature), std::move(signature));
  return v1::Status::ok();
}

bool signatures_match(std::string_view expected, std::string_view given) noexcept {
  return expected.size() == given.size() && CRYPTO_memcmp(expected.data(), given.data(), expected.size()) == 0;
}

}  // namespace mqkit::protocol::acl
