// The settings that turn a server's Prometheus exporter on, as RocketMQ 5 names them in its
// BrokerConfig (metricsExporterType, metricsPromExporterHost, metricsPromExporterPort), and the
// start-up every server shares: listen, then announce the port.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "mqkit/metrics/http_exporter.hpp"
#include "mqkit/plugin/v1/config.hpp"
#include "mqkit/plugin/v1/status.hpp"

namespace mqkit::metrics {

// RocketMQ also has OTLP_GRPC and LOG; mqkit exports to Prometheus only.
inline constexpr const char* kExporterTypes[] = {"DISABLE", "PROM", nullptr};

inline constexpr plugin::v1::ConfigField kExporterTypeField{
    .key = "metrics_exporter_type", .type = plugin::v1::ValueType::kString, .default_value = "DISABLE",
    .description = "PROM serves Prometheus metrics over HTTP at /metrics (docs/metrics.md); DISABLE does not",
    .allowed = kExporterTypes};
inline constexpr plugin::v1::ConfigField kExporterHostField{
    .key = "metrics_prom_exporter_host", .type = plugin::v1::ValueType::kString, .default_value = "",
    .description = "Address the metrics exporter listens on (empty = listen_host)"};

struct ExporterSettings {
  bool enabled = false;
  std::string host;  // empty = the server's listen host
  std::uint16_t port = 0;
};

// From a section holding the two fields above and `port_key` (an int field).
ExporterSettings exporter_settings_from(const plugin::v1::ConfigValues& values, std::string_view port_key);

// Starts `exporter` on `settings` (its host, or `listen_host` when empty) and announces the
// bound port in the log and on standard output as "<server> prometheus exporter on port N"
// (before the server's "ready on port" line, which it never matches).
plugin::v1::Result<std::uint16_t> start_exporter(HttpExporter& exporter, const ExporterSettings& settings,
                                                 const std::string& listen_host, std::string_view server);

}  // namespace mqkit::metrics
