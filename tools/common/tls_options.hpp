// The TLS options mqadmin and mqbench share (RocketMQ's tools take -Dtls.enable=true and the
// tls.client.* properties): they fill the transport settings of the tool's client
// (plugins/transports/remoting/README.md).
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <string>
#include <tuple>

namespace mqkit::tools {

// Adds --tls, --tls-ca-file, --tls-cert-file and --tls-key-file to `app`. After parsing,
// `settings` holds the transport keys given, with tls_enable set when any of them was.
inline void add_tls_options(CLI::App& app, std::map<std::string, std::string>& settings) {
  app.add_flag_callback(
      "--tls", [&settings] { settings["tls_enable"] = "true"; },
      "connect with TLS (the servers' tls_mode is permissive or enforcing)");
  for (const auto& [flag, key, what] :
       {std::tuple{"--tls-ca-file", "tls_ca_file", "PEM CAs to verify the servers' certificates with"},
        std::tuple{"--tls-cert-file", "tls_cert_file", "PEM client certificate, for servers that ask for one"},
        std::tuple{"--tls-key-file", "tls_key_file", "PEM key of --tls-cert-file"}}) {
    app.add_option_function<std::string>(
        flag,
        [&settings, key = std::string(key)](const std::string& value) {
          settings[key] = value;
          settings["tls_enable"] = "true";
        },
        std::string(what) + " (implies --tls)");
  }
}

}  // namespace mqkit::tools
