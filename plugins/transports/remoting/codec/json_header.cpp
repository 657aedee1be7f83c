// JSON header: one object, keys in any order, unknown keys ignored. Parsed with a SAX handler
// (no DOM) in iterative mode, so a hostile header costs neither deep recursion nor a tree of
// allocations: anything nested where the layout has no nesting is refused at once.
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "transports/remoting/codec/header_codec.hpp"

namespace mqkit::plugins::transports::remoting {

namespace {

using v1::RemotingCommand;
using v1::Result;
using v1::Status;

// Lets rapidjson's Writer append straight into the frame buffer. The Writer reserves room for
// each string and number before writing it (PutReserve, found by argument-dependent lookup),
// so its characters are stored without a capacity check each; finish() drops the unused room.
class ByteSink {
 public:
  using Ch = char;
  explicit ByteSink(std::vector<std::uint8_t>* out) : out_(out), used_(out->size()) {}
  void reserve(std::size_t n) {
    if (out_->size() - used_ < n) out_->resize(std::max(used_ + n, 2 * out_->size()));
  }
  void put_unsafe(char c) { (*out_)[used_++] = static_cast<std::uint8_t>(c); }
  void Put(char c) {
    reserve(1);
    put_unsafe(c);
  }
  void Flush() {}
  void finish() { out_->resize(used_); }

 private:
  std::vector<std::uint8_t>* out_;
  std::size_t used_;
};

void PutReserve(ByteSink& sink, std::size_t count) { sink.reserve(count); }
void PutUnsafe(ByteSink& sink, char c) { sink.put_unsafe(c); }

using JsonWriter = rapidjson::Writer<ByteSink>;

bool write_string(JsonWriter& writer, std::string_view text) {
  if (text.size() > std::numeric_limits<rapidjson::SizeType>::max()) return false;
  return writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

bool write_key(JsonWriter& writer, std::string_view key) {
  if (key.size() > std::numeric_limits<rapidjson::SizeType>::max()) return false;
  return writer.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
}

std::optional<std::int32_t> parse_int32(std::string_view text) {
  std::int32_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

enum class Scalar : std::uint8_t { kNull, kBool, kNumber, kString };

// Nesting allowed below a key this decoder does not know (it skips the value).
constexpr int kMaxSkippedDepth = 32;

class HeaderHandler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, HeaderHandler> {
 public:
  using SizeType = rapidjson::SizeType;

  bool Null() { return scalar(Scalar::kNull, {}); }
  bool Bool(bool b) { return scalar(Scalar::kBool, b ? "true" : "false"); }
  bool RawNumber(const char* s, SizeType n, bool /*copy*/) { return scalar(Scalar::kNumber, {s, n}); }
  bool String(const char* s, SizeType n, bool /*copy*/) { return scalar(Scalar::kString, {s, n}); }
  // Only reached without kParseNumbersAsStringsFlag, which decode_json_header always sets.
  bool Int(int) { return fail("unexpected binary number"); }
  bool Uint(unsigned) { return fail("unexpected binary number"); }
  bool Int64(std::int64_t) { return fail("unexpected binary number"); }
  bool Uint64(std::uint64_t) { return fail("unexpected binary number"); }
  bool Double(double) { return fail("unexpected binary number"); }

  bool Key(const char* s, SizeType n, bool /*copy*/) {
    if (where_ == Where::kRoot) key_.assign(s, n);
    if (where_ == Where::kExt) ext_key_.assign(s, n);
    return true;
  }

  bool StartObject() { return start_nested(/*is_object=*/true); }
  bool StartArray() { return start_nested(/*is_object=*/false); }
  bool EndObject(SizeType /*members*/) { return end_nested(); }
  bool EndArray(SizeType /*elements*/) { return end_nested(); }

  const std::string& error() const { return error_; }
  bool has_code() const { return has_code_; }
  RemotingCommand take() { return std::move(command_); }

 private:
  enum class Where : std::uint8_t { kBeforeRoot, kRoot, kExt, kSkipping, kDone };

  bool fail(std::string message) {
    error_ = "JSON header: " + std::move(message);
    return false;
  }

  bool start_nested(bool is_object) {
    switch (where_) {
      case Where::kBeforeRoot:
        if (!is_object) return fail("the header is an array, not an object");
        where_ = Where::kRoot;
        return true;
      case Where::kRoot:
        if (is_object && key_ == "extFields") {
          where_ = Where::kExt;
          return true;
        }
        if (is_known(key_)) {
          return fail("field '" + key_ + "' holds " + (is_object ? "an object" : "an array") +
                      ", expected " + expected(key_));
        }
        where_ = Where::kSkipping;
        skipped_depth_ = 1;
        return true;
      case Where::kExt:
        return fail("extFields value '" + ext_key_ + "' is " + (is_object ? "an object" : "an array") +
                    ", expected a string, number or boolean");
      case Where::kSkipping:
        if (++skipped_depth_ > kMaxSkippedDepth) {
          return fail("field '" + key_ + "' nests deeper than " + std::to_string(kMaxSkippedDepth) + " levels");
        }
        return true;
      case Where::kDone:
        break;
    }
    return fail("content after the header object");
  }

  bool end_nested() {
    switch (where_) {
      case Where::kRoot: where_ = Where::kDone; return true;
      case Where::kExt: where_ = Where::kRoot; return true;
      case Where::kSkipping:
        if (--skipped_depth_ == 0) where_ = Where::kRoot;
        return true;
      default: return fail("unbalanced nesting");
    }
  }

  static bool is_known(std::string_view key) {
    return key == "code" || key == "opaque" || key == "flag" || key == "version" || key == "language" ||
           key == "remark" || key == "extFields" || key == "serializeTypeCurrentRPC";
  }

  static std::string expected(std::string_view key) {
    if (key == "language") return "a language name";
    if (key == "remark" || key == "serializeTypeCurrentRPC") return "a string";
    if (key == "extFields") return "an object";  // reached only for arrays
    return "a 32-bit integer";
  }

  bool scalar(Scalar kind, std::string_view text) {
    switch (where_) {
      case Where::kRoot: return root_field(kind, text);
      case Where::kExt:
        // A null value means "absent", as Java's header decoding treats it.
        if (kind != Scalar::kNull) command_.ext_fields.set(ext_key_, std::string(text));
        return true;
      case Where::kSkipping: return true;
      case Where::kBeforeRoot: return fail("the header is not an object");
      case Where::kDone: break;
    }
    return fail("content after the header object");
  }

  bool int_field(Scalar kind, std::string_view text, std::int32_t* out) {
    if (kind == Scalar::kNull) return true;
    std::optional<std::int32_t> value;
    if (kind == Scalar::kNumber || kind == Scalar::kString) value = parse_int32(text);
    if (!value) return fail("field '" + key_ + "' is not a 32-bit integer: " + std::string(text));
    *out = *value;
    return true;
  }

  bool root_field(Scalar kind, std::string_view text) {
    if (key_ == "code") {
      if (kind != Scalar::kNull) has_code_ = true;
      return int_field(kind, text, &command_.code);
    }
    if (key_ == "opaque") return int_field(kind, text, &command_.opaque);
    if (key_ == "flag") return int_field(kind, text, &command_.flag);
    if (key_ == "version") return int_field(kind, text, &command_.version);
    if (key_ == "language") return language_field(kind, text);
    if (key_ == "remark") {
      if (kind == Scalar::kNull) {
        command_.remark.reset();
      } else {
        command_.remark.emplace(text);
      }
      return true;
    }
    if (key_ == "extFields" && kind != Scalar::kNull) {
      return fail("field 'extFields' is not an object: " + std::string(text));
    }
    return true;  // serializeTypeCurrentRPC (the header word is authoritative) and unknown keys
  }

  bool language_field(Scalar kind, std::string_view text) {
    // Names as Java writes them; a number is taken as the ordinal. Anything unknown is OTHER,
    // so a newer peer's language never breaks decoding.
    command_.language = v1::LanguageCode::kOther;
    if (kind == Scalar::kString) {
      (void)v1::parse_language(text, &command_.language);
    } else if (kind == Scalar::kNumber) {
      auto ordinal = parse_int32(text);
      if (ordinal && *ordinal >= 0 && *ordinal <= static_cast<int>(v1::LanguageCode::kRust)) {
        command_.language = static_cast<v1::LanguageCode>(*ordinal);
      }
    } else if (kind == Scalar::kNull) {
      command_.language = v1::LanguageCode::kJava;
    }
    return true;
  }

  Where where_ = Where::kBeforeRoot;
  int skipped_depth_ = 0;
  std::string key_;
  std::string ext_key_;
  std::string error_;
  bool has_code_ = false;
  RemotingCommand command_ = make_default();

  static RemotingCommand make_default() {
    RemotingCommand c;
    // The Java defaults for fields a sender left out.
    c.language = v1::LanguageCode::kJava;
    c.version = 0;
    c.serialize_type = v1::SerializeType::kJson;
    return c;
  }
};

}  // namespace

v1::Status append_json_header(const RemotingCommand& command, std::vector<std::uint8_t>* out) {
  ByteSink sink(out);
  // Room for the fixed keys and every field, so that most headers are written without growing.
  std::size_t estimate = 160 + (command.remark ? command.remark->size() : 0);
  for (const auto& [key, value] : command.ext_fields) estimate += key.size() + value.size() + 6;
  sink.reserve(estimate);
  JsonWriter writer(sink);
  // Keys in Java's (alphabetical) order, so our bytes match a Java peer's.
  bool ok = writer.StartObject() && write_key(writer, "code") && writer.Int(command.code);
  if (ok && !command.ext_fields.empty()) {
    ok = write_key(writer, "extFields") && writer.StartObject();
    for (auto it = command.ext_fields.begin(); ok && it != command.ext_fields.end(); ++it) {
      ok = write_key(writer, it->first) && write_string(writer, it->second);
    }
    ok = ok && writer.EndObject();
  }
  ok = ok && write_key(writer, "flag") && writer.Int(command.flag) && write_key(writer, "language") &&
       write_string(writer, v1::to_string(command.language)) && write_key(writer, "opaque") &&
       writer.Int(command.opaque);
  if (ok && command.remark) ok = write_key(writer, "remark") && write_string(writer, *command.remark);
  ok = ok && write_key(writer, "serializeTypeCurrentRPC") && write_string(writer, "JSON") &&
       write_key(writer, "version") && writer.Int(command.version) && writer.EndObject();
  sink.finish();
  if (!ok) return Status::invalid_argument("JSON header: a string is too long to encode");
  return Status::ok();
}

Result<RemotingCommand> decode_json_header(std::span<const std::uint8_t> bytes) {
  constexpr unsigned kFlags = rapidjson::kParseIterativeFlag | rapidjson::kParseNumbersAsStringsFlag;
  rapidjson::MemoryStream stream(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  HeaderHandler handler;
  rapidjson::Reader reader;
  const rapidjson::ParseResult parsed = reader.Parse<kFlags>(stream, handler);
  if (!handler.error().empty()) return Status::corruption(handler.error());
  if (parsed.IsError()) {
    return Status::corruption("JSON header: malformed at byte " + std::to_string(parsed.Offset()) + ": " +
                              rapidjson::GetParseError_En(parsed.Code()));
  }
  if (!handler.has_code()) return Status::corruption("JSON header: no 'code' field");
  return handler.take();
}

}  // namespace mqkit::plugins::transports::remoting
