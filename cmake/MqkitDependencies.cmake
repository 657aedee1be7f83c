# Every dependency comes from Debian 12 packages (tools/install-deps.sh installs them).
find_package(Threads REQUIRED)
find_package(ZLIB REQUIRED)
find_package(Boost 1.74 REQUIRED)            # DLL and Asio are header-only parts of Boost
find_package(tomlplusplus 3.3 REQUIRED)      # compiled libtomlplusplus.so, never header-only
find_package(spdlog 1.10 REQUIRED)           # compiled libspdlog.so
find_package(RapidJSON REQUIRED)
find_package(CLI11 REQUIRED)
if(MQKIT_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(MQKIT_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()

# Boost.DLL would otherwise pull in Boost.Filesystem; std::filesystem does the same job.
add_library(mqkit_boost_dll INTERFACE)
target_link_libraries(mqkit_boost_dll INTERFACE Boost::boost ${CMAKE_DL_LIBS})
target_compile_definitions(mqkit_boost_dll INTERFACE BOOST_DLL_USE_STD_FS)

