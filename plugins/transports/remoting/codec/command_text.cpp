#include "transports/remoting/codec/command_text.hpp"

#include <algorithm>

namespace mqkit::plugins::transports::remoting {

namespace {

std::vector<std::uint8_t> whole_body(const v1::RemotingCommand& c) {
  std::vector<std::uint8_t> out(c.body);
  for (const auto& slice : c.body_slices) out.insert(out.end(), slice.bytes.begin(), slice.bytes.end());
  return out;
}

bool same_fields(const v1::ExtFields& a, const v1::ExtFields& b) {
  return a.size() == b.size() &&
         std::all_of(a.begin(), a.end(), [&](const auto& kv) { return b.get(kv.first) == kv.second; });
}

}  // namespace

bool same_on_wire(const v1::RemotingCommand& a, const v1::RemotingCommand& b) {
  return a.code == b.code && a.language == b.language && a.version == b.version && a.opaque == b.opaque &&
         a.flag == b.flag && a.remark == b.remark && a.serialize_type == b.serialize_type &&
         same_fields(a.ext_fields, b.ext_fields) && whole_body(a) == whole_body(b);
}

std::string describe(const v1::RemotingCommand& c) {
  std::string out = "code=" + std::to_string(c.code) + " opaque=" + std::to_string(c.opaque) +
                    " flag=" + std::to_string(c.flag) + " language=" + std::string(v1::to_string(c.language)) +
                    " version=" + std::to_string(c.version) +
                    (c.serialize_type == v1::SerializeType::kJson ? " JSON" : " ROCKETMQ");
  if (c.remark) out += " remark=\"" + *c.remark + "\"";
  if (!c.ext_fields.empty()) {
    out += " extFields={";
    bool first = true;
    for (const auto& [key, value] : c.ext_fields) {
      out += (first ? "" : ", ") + key + "=" + value;
      first = false;
    }
    out += "}";
  }
  return out + " body=" + std::to_string(c.body_size()) + "B";
}

}  // namespace mqkit::plugins::transports::remoting
