# find_package(mqkit-client): the C++ client SDK as mqkit::client (static libraries). It needs
# the plugin-api package installed beside it and these shared libraries (Debian 12 packages:
# libspdlog-dev, libtomlplusplus-dev, libssl-dev, zlib1g-dev). At run time the SDK loads its
# transport and policy plugins from <prefix>/lib/mqkit/plugins, $MQKIT_PLUGIN_PATH or the
# client config's [kernel] plugin_dirs.
include(CMakeFindDependencyMacro)
find_dependency(mqkit-plugin-api HINTS "${CMAKE_CURRENT_LIST_DIR}/../mqkit-plugin-api")
find_dependency(Threads)
find_dependency(ZLIB)
find_dependency(OpenSSL COMPONENTS Crypto)
find_dependency(spdlog)
find_dependency(tomlplusplus)
include("${CMAKE_CURRENT_LIST_DIR}/mqkit-clientTargets.cmake")
