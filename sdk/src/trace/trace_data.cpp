#include "mqkit/client/trace_data.hpp"

#include <algorithm>
#include <charconv>

namespace mqkit::client::trace {

namespace {

// How Java's StringBuilder writes a null String, which absent tags and keys are.
constexpr std::string_view kNullText = "null";

class RecordWriter {
 public:
  explicit RecordWriter(std::string& out) : out_(out) {}
  RecordWriter& field(std::string_view text) {
    separate();
    out_ += text;
    return *this;
  }
  RecordWriter& optional(std::string_view text) { return field(text.empty() ? kNullText : text); }
  RecordWriter& number(std::int64_t value) { return field(std::to_string(value)); }
  RecordWriter& flag(bool value) { return field(value ? "true" : "false"); }
  void end() { out_ += kFieldSeparator; }

 private:
  void separate() {
    if (started_) out_ += kContentSeparator;
    started_ = true;
  }
  std::string& out_;
  bool started_ = false;
};

void add_key(std::vector<std::string>& keys, std::string_view key) {
  if (key.empty() || std::find(keys.begin(), keys.end(), key) != keys.end()) return;
  keys.emplace_back(key);
}

// The fields of one record as Java's String.split gives them: trailing empty fields dropped.
std::vector<std::string_view> split_fields(std::string_view record) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = record.find(kContentSeparator, start);
    fields.push_back(record.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  while (!fields.empty() && fields.back().empty()) fields.pop_back();
  return fields;
}

// Reads one record's fields by position, remembering the first problem.
class RecordReader {
 public:
  explicit RecordReader(std::vector<std::string_view> fields) : fields_(std::move(fields)) {}
  std::size_t size() const noexcept { return fields_.size(); }
  std::string text(std::size_t i) const { return i < fields_.size() ? std::string(fields_[i]) : std::string(); }
  std::string optional(std::size_t i) const { return fields_.size() > i && fields_[i] == kNullText ? "" : text(i); }
  // Boolean.parseBoolean: "true" in any case, anything else false.
  bool flag(std::size_t i) const {
    const std::string_view value = i < fields_.size() ? fields_[i] : std::string_view();
    return value.size() == 4 && std::equal(value.begin(), value.end(), "true", [](char a, char b) {
             return (a | 0x20) == b;
           });
  }
  template <typename Int>
  Int number(std::size_t i, std::string_view name) {
    Int value = 0;
    const std::string_view digits = i < fields_.size() ? fields_[i] : std::string_view();
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (error != std::errc() || end != digits.data() + digits.size()) {
      fail(std::string(name) + " is not a number: \"" + std::string(digits) + "\"");
    }
    return value;
  }
  TraceMessageType msg_type(std::size_t i) {
    const auto ordinal = number<int>(i, "msgType");
    if (ordinal < 0 || ordinal > static_cast<int>(TraceMessageType::kDelay)) {
      fail("msgType " + std::to_string(ordinal) + " is not a MessageType ordinal (0..3)");
      return TraceMessageType::kNormal;
    }
    return static_cast<TraceMessageType>(ordinal);
  }
  void need(std::size_t count, std::string_view type) {
    if (fields_.size() < count) {
      fail(std::string(type) + " record has " + std::to_string(fields_.size()) + " fields, needs at least " +
           std::to_string(count));
    }
  }
  void fail(std::string problem) {
    if (problem_.empty()) problem_ = std::move(problem);
  }
  const std::string& problem() const noexcept { return problem_; }

 private:
  std::vector<std::string_view> fields_;
  std::string problem_;
};

// The fields Pub and EndTransaction records begin with: type, timestamp, regionId, group, topic,
// msgId, tags, keys, storeHost.
TraceBean& read_send_head(RecordReader& r, TraceContext& c) {
  c.timestamp_ms = r.number<std::int64_t>(1, "timestamp");
  c.region_id = r.text(2);
  c.group = r.text(3);
  TraceBean& bean = c.beans.emplace_back();
  bean.topic = r.text(4);
  bean.msg_id = r.text(5);
  bean.tags = r.optional(6);
  bean.keys = r.optional(7);
  bean.store_host = r.text(8);
  return bean;
}

TraceContext read_pub(RecordReader& r) {
  r.need(13, "Pub");
  TraceContext c{.type = TraceType::kPub};
  if (!r.problem().empty()) return c;
  TraceBean& bean = read_send_head(r, c);
  bean.body_length = r.number<std::int32_t>(9, "bodyLength");
  c.cost_ms = r.number<std::int32_t>(10, "costTime");
  bean.msg_type = r.msg_type(11);
  if (r.size() == 13) {  // before offsetMsgId was added
    c.success = r.flag(12);
  } else {
    bean.offset_msg_id = r.text(12);
    c.success = r.flag(13);
    bean.client_host = r.text(14);
  }
  return c;
}

TraceContext read_sub_before(RecordReader& r) {
  r.need(7, "SubBefore");  // the keys, last, may be missing when empty
  TraceContext c{.type = TraceType::kSubBefore};
  if (!r.problem().empty()) return c;
  c.timestamp_ms = r.number<std::int64_t>(1, "timestamp");
  c.region_id = r.text(2);
  c.group = r.text(3);
  c.request_id = r.text(4);
  TraceBean& bean = c.beans.emplace_back();
  bean.msg_id = r.text(5);
  bean.retry_times = r.number<std::int32_t>(6, "retryTimes");
  bean.keys = r.optional(7);
  return c;
}

TraceContext read_sub_after(RecordReader& r) {
  r.need(6, "SubAfter");
  TraceContext c{.type = TraceType::kSubAfter};
  if (!r.problem().empty()) return c;
  c.request_id = r.text(1);
  TraceBean& bean = c.beans.emplace_back();
  bean.msg_id = r.text(2);
  c.cost_ms = r.number<std::int32_t>(3, "costTime");
  c.success = r.flag(4);
  bean.keys = r.optional(5);
  if (r.size() >= 7) c.context_code = r.number<std::int32_t>(6, "contextCode");
  if (r.size() >= 9) {  // not written for Aliyun's cloud channel
    c.timestamp_ms = r.number<std::int64_t>(7, "timestamp");
    c.group = r.text(8);
  }
  return c;
}

TraceContext read_end_transaction(RecordReader& r) {
  r.need(13, "EndTransaction");
  TraceContext c{.type = TraceType::kEndTransaction};
  if (!r.problem().empty()) return c;
  TraceBean& bean = read_send_head(r, c);
  bean.msg_type = r.msg_type(9);
  bean.transaction_id = r.text(10);
  bean.transaction_state = r.text(11);
  bean.from_transaction_check = r.flag(12);
  return c;
}

}  // namespace

std::string_view to_string(TraceType type) noexcept {
  switch (type) {
    case TraceType::kSubBefore:
      return "SubBefore";
    case TraceType::kSubAfter:
      return "SubAfter";
    case TraceType::kEndTransaction:
      return "EndTransaction";
    case TraceType::kPub:
      break;
  }
  return "Pub";
}

TraceTransfer encode_trace_context(const TraceContext& c) {
  TraceTransfer transfer;
  std::string& out = transfer.data;
  const std::string_view type = to_string(c.type);
  switch (c.type) {
    case TraceType::kPub:
    case TraceType::kEndTransaction: {
      if (c.beans.empty()) break;
      const TraceBean& bean = c.beans.front();
      RecordWriter record(out);
      record.field(type).number(c.timestamp_ms).field(c.region_id).field(c.group).field(bean.topic);
      record.field(bean.msg_id).optional(bean.tags).optional(bean.keys).field(bean.store_host);
      if (c.type == TraceType::kPub) {
        record.number(bean.body_length).number(c.cost_ms).number(static_cast<int>(bean.msg_type));
        record.field(bean.offset_msg_id).flag(c.success);
      } else {
        record.number(static_cast<int>(bean.msg_type)).field(bean.transaction_id).field(bean.transaction_state);
        record.flag(bean.from_transaction_check);
      }
      record.end();
      break;
    }
    case TraceType::kSubBefore:
      for (const TraceBean& bean : c.beans) {
        RecordWriter record(out);
        record.field(type).number(c.timestamp_ms).field(c.region_id).field(c.group).field(c.request_id);
        record.field(bean.msg_id).number(bean.retry_times).optional(bean.keys);
        record.end();
      }
      break;
    case TraceType::kSubAfter:
      for (const TraceBean& bean : c.beans) {
        RecordWriter record(out);
        record.field(type).field(c.request_id).field(bean.msg_id).number(c.cost_ms).flag(c.success);
        record.optional(bean.keys).number(c.context_code).number(c.timestamp_ms).field(c.group);
        record.end();
      }
      break;
  }
  const std::size_t records = c.type == TraceType::kPub || c.type == TraceType::kEndTransaction
                                  ? std::min<std::size_t>(c.beans.size(), 1)
                                  : c.beans.size();
  for (std::size_t i = 0; i < records; ++i) {
    const TraceBean& bean = c.beans[i];
    add_key(transfer.keys, bean.msg_id);
    std::string_view keys = bean.keys;
    while (!keys.empty()) {
      const std::size_t space = keys.find(' ');
      add_key(transfer.keys, keys.substr(0, space));
      keys = space == std::string_view::npos ? std::string_view() : keys.substr(space + 1);
    }
  }
  return transfer;
}

Result<std::vector<TraceContext>> decode_trace_data(std::string_view data) {
  std::vector<TraceContext> contexts;
  std::size_t index = 0;
  while (!data.empty()) {
    const std::size_t end = data.find(kFieldSeparator);
    const std::string_view record = data.substr(0, end);
    data = end == std::string_view::npos ? std::string_view() : data.substr(end + 1);
    if (record.empty()) continue;
    ++index;
    RecordReader reader(split_fields(record));
    const std::string type = reader.text(0);
    TraceContext context;
    if (type == to_string(TraceType::kPub)) {
      context = read_pub(reader);
    } else if (type == to_string(TraceType::kSubBefore)) {
      context = read_sub_before(reader);
    } else if (type == to_string(TraceType::kSubAfter)) {
      context = read_sub_after(reader);
    } else if (type == to_string(TraceType::kEndTransaction)) {
      context = read_end_transaction(reader);
    } else {
      continue;
    }
    if (!reader.problem().empty()) {
      return Status::invalid_argument("trace record " + std::to_string(index) + ": " + reader.problem());
    }
    contexts.push_back(std::move(context));
  }
  return contexts;
}

}  // namespace mqkit::client::trace
