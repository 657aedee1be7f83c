#include "mqkit/metrics/exporter_settings.hpp"

#include <iostream>

#include "mqkit/kernel/logging.hpp"

namespace mqkit::metrics {

ExporterSettings exporter_settings_from(const plugin::v1::ConfigValues& values, std::string_view port_key) {
  ExporterSettings settings;
  settings.enabled = values.get_string(kExporterTypeField.key) == "PROM";
  settings.host = values.get_string(kExporterHostField.key);
  settings.port = static_cast<std::uint16_t>(values.get_int(port_key));
  return settings;
}

plugin::v1::Result<std::uint16_t> start_exporter(HttpExporter& exporter, const ExporterSettings& settings,
                                                 const std::string& listen_host, std::string_view server) {
  HttpExporterOptions options;
  options.host = settings.host.empty() ? listen_host : settings.host;
  options.port = settings.port;
  MQKIT_ASSIGN_OR_RETURN(const std::uint16_t port, exporter.start(options));
  kernel::logger(server)->info("prometheus exporter serving http://{}:{}/metrics", options.host, port);
  std::cout << server << " prometheus exporter on port " << port << std::endl;
  return port;
}

}  // namespace mqkit::metrics
