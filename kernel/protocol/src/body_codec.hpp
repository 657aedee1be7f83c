// The pieces of the JSON body codec that more than one source of this library uses: the parser,
// the optional-field readers every decoder is built on, and SubscriptionData (carried inside
// heartbeats, consumer running info and consumer connection lists). Internal to mqkit_protocol.
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <charconv>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "mqkit/protocol/bodies.hpp"
#include "mqkit/protocol/json_writer.hpp"

namespace mqkit::protocol::detail {

using Value = rapidjson::Value;

inline Result<rapidjson::Document> parse(std::string_view json, std::string_view what) {
  const std::string normalized = quote_bare_keys(json);
  rapidjson::Document doc;
  // Iterative: the recursive parser overflows the stack on a body of a million '['. Full
  // precision: a rate written as 6.922337203685478e20 reads back as the same double.
  doc.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseFullPrecisionFlag>(normalized.data(), normalized.size());
  if (doc.HasParseError()) {
    return Status::invalid_argument(std::string(what) + " is not valid JSON: " +
                                    rapidjson::GetParseError_En(doc.GetParseError()) + " at offset " +
                                    std::to_string(doc.GetErrorOffset()));
  }
  if (!doc.IsObject()) return Status::invalid_argument(std::string(what) + " is not a JSON object");
  return doc;
}

inline Status wrong(std::string_view what, std::string_view field, std::string_view expected) {
  return Status::invalid_argument(std::string(what) + ": field '" + std::string(field) + "' must be " +
                                  std::string(expected));
}

// Optional-field readers: absent or null keeps the default; a wrong type is an error. Numbers
// sent as strings (as some clients do) are accepted.
class Fields {
 public:
  Fields(const Value& object, std::string_view what) : object_(object), what_(what) {}

  const Value* find(std::string_view name) const {
    auto it = object_.FindMember(Value(rapidjson::StringRef(name.data(), name.size())));
    if (it == object_.MemberEnd() || it->value.IsNull()) return nullptr;
    return &it->value;
  }

  Status get(std::string_view name, std::string& out) const {
    const Value* v = find(name);
    if (!v) return Status::ok();
    if (!v->IsString()) return wrong(what_, name, "a string");
    out.assign(v->GetString(), v->GetStringLength());
    return Status::ok();
  }
  template <typename Int>
    requires std::is_integral_v<Int> && (!std::is_same_v<Int, bool>)
  Status get(std::string_view name, Int& out) const {
    const Value* v = find(name);
    if (!v) return Status::ok();
    if (v->IsInt64()) {
      // A value the field cannot hold is refused, not wrapped (2^32 + 16 queues is not 16).
      if (!std::in_range<Int>(v->GetInt64())) return wrong(what_, name, "an integer in range");
      out = static_cast<Int>(v->GetInt64());
      return Status::ok();
    }
    if (v->IsString()) {
      std::string_view s(v->GetString(), v->GetStringLength());
      auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
      if (ec == std::errc() && ptr == s.data() + s.size()) return Status::ok();
    }
    return wrong(what_, name, "an integer");
  }
  Status get(std::string_view name, bool& out) const {
    const Value* v = find(name);
    if (!v) return Status::ok();
    if (v->IsBool()) {
      out = v->GetBool();
      return Status::ok();
    }
    if (v->IsString()) {
      out = std::string_view(v->GetString()) == "true";
      return Status::ok();
    }
    return wrong(what_, name, "a boolean");
  }
  Status get(std::string_view name, double& out) const {
    const Value* v = find(name);
    if (!v) return Status::ok();
    if (!v->IsNumber()) return wrong(what_, name, "a number");
    out = v->GetDouble();
    return Status::ok();
  }
  // Arrays of strings or ints into a container with insert/push.
  template <typename Container, typename Read>
  Status each(std::string_view name, Container& out, Read read) const {
    const Value* v = find(name);
    if (!v) return Status::ok();
    if (!v->IsArray()) return wrong(what_, name, "an array");
    for (const auto& item : v->GetArray()) MQKIT_RETURN_IF_ERROR(read(item, out));
    return Status::ok();
  }
  const Value* object(std::string_view name, Status& error) const {
    const Value* v = find(name);
    if (v && !v->IsObject()) error = wrong(what_, name, "an object");
    return v && v->IsObject() ? v : nullptr;
  }

 private:
  const Value& object_;
  std::string_view what_;
};

inline Status read_string_item(const Value& item, std::string& out, std::string_view what) {
  if (!item.IsString()) return Status::invalid_argument(std::string(what) + ": expected strings in the array");
  out.assign(item.GetString(), item.GetStringLength());
  return Status::ok();
}

// SubscriptionData as fastjson writes it (keys in alphabetical order), and read back.
void write(json::Writer& w, const SubscriptionData& s);
Result<SubscriptionData> read_subscription(const Value& v);

}  // namespace mqkit::protocol::detail
