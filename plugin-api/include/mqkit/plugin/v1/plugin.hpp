// Everything a plugin author includes: the v1 interfaces, Status/Result, config schema and the
// MQKIT_PLUGIN macro.
#pragma once

#include "mqkit/plugin/v1/define_plugin.hpp"
#include "mqkit/plugin/v1/java_hash.hpp"
