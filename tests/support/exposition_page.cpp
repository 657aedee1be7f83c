#include "exposition_page.hpp"

#include <map>
#include <string>

#include "loopback_client.hpp"

namespace mqkit::testing {

using plugin::v1::Result;
using plugin::v1::Status;

Result<HttpAnswer> http_get(std::uint16_t port, std::string_view path) {
  LoopbackClient client(port);
  if (!client.connected()) return Status::unavailable("cannot connect to 127.0.0.1:" + std::to_string(port));
  client.send("GET " + std::string(path) + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
  const std::string all = client.read_all();
  const auto end_of_head = all.find("\r\n\r\n");
  if (all.rfind("HTTP/1.", 0) != 0 || end_of_head == std::string::npos || all.size() < 12) {
    return Status::corruption("not an HTTP answer: " + all.substr(0, 200));
  }
  HttpAnswer answer;
  answer.status = std::stoi(all.substr(9, 3));
  answer.head = all.substr(0, end_of_head);
  answer.body = all.substr(end_of_head + 4);
  return answer;
}

namespace {

// The labels of a sample line, unescaped; false when the line is not a sample of `name`.
bool parse_sample(std::string_view line, std::string_view name, std::map<std::string, std::string>& labels,
                  double& value) {
  if (!line.starts_with(name) || line.size() <= name.size()) return false;
  std::size_t at = name.size();
  labels.clear();
  if (line[at] == '{') {
    ++at;
    while (at < line.size() && line[at] != '}') {
      const auto eq = line.find("=\"", at);
      if (eq == std::string_view::npos) return false;
      std::string key(line.substr(at, eq - at));
      std::string text;
      at = eq + 2;
      while (at < line.size() && line[at] != '"') {
        if (line[at] == '\\' && at + 1 < line.size()) {
          ++at;
          text += line[at] == 'n' ? '\n' : line[at];
        } else {
          text += line[at];
        }
        ++at;
      }
      labels[key] = text;
      ++at;  // the closing quote
      if (at < line.size() && line[at] == ',') ++at;
    }
    ++at;  // '}'
  }
  if (at >= line.size() || line[at] != ' ') return false;
  value = std::stod(std::string(line.substr(at + 1)));
  return true;
}

template <typename Visit>
void for_matching(std::string_view page, std::string_view name, LabelPairs wanted, Visit visit) {
  std::map<std::string, std::string> labels;
  while (!page.empty()) {
    const auto newline = page.find('\n');
    const std::string_view line = page.substr(0, newline);
    page = newline == std::string_view::npos ? std::string_view() : page.substr(newline + 1);
    double value = 0;
    if (line.starts_with('#') || !parse_sample(line, name, labels, value)) continue;
    bool all = true;
    for (const auto& [key, text] : wanted) {
      const auto it = labels.find(std::string(key));
      all = all && it != labels.end() && it->second == text;
    }
    if (all && !visit(value)) return;
  }
}

}  // namespace

std::optional<double> sample_value(std::string_view page, std::string_view name, LabelPairs labels) {
  std::optional<double> found;
  for_matching(page, name, labels, [&](double value) {
    found = value;
    return false;
  });
  return found;
}

double sum_of_samples(std::string_view page, std::string_view name, LabelPairs labels) {
  double sum = 0;
  for_matching(page, name, labels, [&](double value) {
    sum += value;
    return true;
  });
  return sum;
}

}  // namespace mqkit::testing
