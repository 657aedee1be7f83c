#include "pop_state.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <utility>

#include "mqkit/protocol/json_writer.hpp"

namespace mqkit::broker {

using plugin::v1::Result;
using plugin::v1::Status;

namespace {

constexpr std::int64_t kVersion = 1;

using protocol::json::key;
using protocol::json::str;

// Reads the members of one JSON object and keeps the first one missing or of the wrong type, so
// a decoder reads a whole object and checks once.
class MemberReader {
 public:
  MemberReader(const rapidjson::Value& object, std::string where) : object_(object), where_(std::move(where)) {}

  std::int64_t int64(const char* name) {
    const rapidjson::Value* value = find(name, "an integer", &rapidjson::Value::IsInt64);
    return value ? value->GetInt64() : 0;
  }
  std::int32_t int32(const char* name) {
    const rapidjson::Value* value = find(name, "a 32-bit integer", &rapidjson::Value::IsInt);
    return value ? value->GetInt() : 0;
  }
  std::string string(const char* name) {
    const rapidjson::Value* value = find(name, "a string", &rapidjson::Value::IsString);
    return value ? std::string(value->GetString(), value->GetStringLength()) : std::string();
  }
  // Null when missing.
  const rapidjson::Value* array(const char* name) { return find(name, "an array", &rapidjson::Value::IsArray); }

  const Status& status() const noexcept { return status_; }

 private:
  const rapidjson::Value* find(const char* name, const char* expected, bool (rapidjson::Value::*is)() const) {
    const auto member = object_.FindMember(name);
    if (member != object_.MemberEnd() && (member->value.*is)()) return &member->value;
    if (status_) status_ = Status::invalid_argument(where_ + ": \"" + name + "\" must be " + expected);
    return nullptr;
  }

  const rapidjson::Value& object_;
  std::string where_;
  Status status_;
};

// An in-flight entry: its queue offset and delivery.
Result<std::pair<std::int64_t, PopInFlight>> decode_in_flight(const rapidjson::Value& entry, const std::string& where) {
  if (!entry.IsObject()) return Status::invalid_argument(where + " is not an object");
  MemberReader member(entry, where);
  const std::int64_t offset = member.int64("offset");
  const PopInFlight in_flight{.pop_time = member.int64("popTime"),
                              .visible_at = member.int64("visibleAt"),
                              .deliveries = member.int32("deliveries")};
  MQKIT_RETURN_IF_ERROR(member.status());
  if (in_flight.deliveries < 1) return Status::invalid_argument(where + ": \"deliveries\" must be at least 1");
  return std::pair{offset, in_flight};
}

Status decode_ledger(const rapidjson::Value& object, const std::string& where, PopLedgers& out) {
  if (!object.IsObject()) return Status::invalid_argument(where + " is not an object");
  MemberReader member(object, where);
  PopLedgerKey ledger_key{member.string("group"), member.string("topic"), member.int32("queueId")};
  PopLedger ledger{.next_offset = member.int64("nextOffset"), .in_flight = {}};
  const rapidjson::Value* in_flight = member.array("inFlight");
  MQKIT_RETURN_IF_ERROR(member.status());
  for (rapidjson::SizeType i = 0; i < in_flight->Size(); ++i) {
    MQKIT_ASSIGN_OR_RETURN(auto entry, decode_in_flight((*in_flight)[i], where + " inFlight[" + std::to_string(i) + "]"));
    ledger.in_flight.insert(std::move(entry));
  }
  out[std::move(ledger_key)] = std::move(ledger);
  return Status::ok();
}

}  // namespace

std::string encode_pop_state(const PopLedgers& ledgers) {
  return protocol::json::write_json([&](protocol::json::Writer& w) {
    w.StartObject();
    key(w, "version"), w.Int64(kVersion);
    key(w, "ledgers"), w.StartArray();
    for (const auto& [ledger_key, ledger] : ledgers) {
      const auto& [group, topic, queue_id] = ledger_key;
      w.StartObject();
      key(w, "group"), str(w, group);
      key(w, "topic"), str(w, topic);
      key(w, "queueId"), w.Int(queue_id);
      key(w, "nextOffset"), w.Int64(ledger.next_offset);
      key(w, "inFlight"), w.StartArray();
      for (const auto& [offset, in_flight] : ledger.in_flight) {
        w.StartObject();
        key(w, "offset"), w.Int64(offset);
        key(w, "popTime"), w.Int64(in_flight.pop_time);
        key(w, "visibleAt"), w.Int64(in_flight.visible_at);
        key(w, "deliveries"), w.Int(in_flight.deliveries);
        w.EndObject();
      }
      w.EndArray();
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  });
}

Result<PopLedgers> decode_pop_state(std::string_view json) {
  rapidjson::Document doc;
  // Iterative: a document of a million '[' must not overflow the stack.
  doc.Parse<rapidjson::kParseIterativeFlag>(json.data(), json.size());
  if (doc.HasParseError()) {
    return Status::invalid_argument(std::string("not valid JSON: ") + rapidjson::GetParseError_En(doc.GetParseError()) +
                                    " at offset " + std::to_string(doc.GetErrorOffset()));
  }
  if (!doc.IsObject()) return Status::invalid_argument("not a JSON object");
  MemberReader member(doc, "the document");
  const std::int64_t version = member.int64("version");
  const rapidjson::Value* ledgers = member.array("ledgers");
  MQKIT_RETURN_IF_ERROR(member.status());
  if (version != kVersion) {
    return Status::invalid_argument("version " + std::to_string(version) + ", this broker reads version " +
                                    std::to_string(kVersion));
  }
  PopLedgers out;
  for (rapidjson::SizeType i = 0; i < ledgers->Size(); ++i) {
    MQKIT_RETURN_IF_ERROR(decode_ledger((*ledgers)[i], "ledgers[" + std::to_string(i) + "]", out));
  }
  return out;
}

}  // namespace mqkit::broker
