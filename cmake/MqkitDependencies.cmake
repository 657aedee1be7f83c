# Every dependency comes from Debian 12 packages (tools/install-deps.sh installs them).
find_package(Threads REQUIRED)
find_package(ZLIB REQUIRED)
# libdeflate's CRC-32 (carry-less multiply) is about 9x zlib's on 1 KiB bodies (bench/RESULTS.md):
# every stored message's body CRC goes through it. Debian's 1.14 ships pkg-config data only.
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBDEFLATE REQUIRED IMPORTED_TARGET GLOBAL libdeflate)
find_package(Boost 1.74 REQUIRED)            # DLL and Asio are header-only parts of Boost
find_package(tomlplusplus 3.3 REQUIRED)      # compiled libtomlplusplus.so, never header-only
find_package(spdlog 1.10 REQUIRED)           # compiled libspdlog.so
find_package(RapidJSON REQUIRED)
find_package(CLI11 REQUIRED)
find_package(pegtl 3.2 REQUIRED)            # header-only PEG parser: the SQL92 filter grammar (kernel/filter)
find_package(Protobuf 3.21 REQUIRED)        # mqproxy: RocketMQ 5's gRPC protocol (proxy/)
find_package(gRPC 1.51 CONFIG REQUIRED)
# libcrypto: MD5 of the consistent-hash allocator, HmacSHA1 of ACL request signatures (kernel/protocol);
# libssl: TLS of the remoting transport.
find_package(OpenSSL 3.0 REQUIRED COMPONENTS Crypto SSL)
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


# The allocator of mqkit's own programs (mqbroker, mqnamesrv, mqadmin, mqbench). glibc's malloc
# spends a quarter of the client's and a fifth of the broker's CPU on 1 KiB message bodies
# (large-bin consolidation on every allocation); jemalloc does not (bench/RESULTS.md,
# "allocator"). The SDK library itself never chooses: an application links what it likes.
# Sanitizers bring their own allocator, so they get the system one.
set(MQKIT_MALLOC "jemalloc" CACHE STRING "Allocator linked into mqkit's programs: jemalloc or system")
set_property(CACHE MQKIT_MALLOC PROPERTY STRINGS jemalloc system)
add_library(mqkit_program_malloc INTERFACE)
if(MQKIT_MALLOC STREQUAL "jemalloc" AND NOT MQKIT_SANITIZE)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(JEMALLOC IMPORTED_TARGET jemalloc)
  if(NOT JEMALLOC_FOUND)
    message(FATAL_ERROR "MQKIT_MALLOC=jemalloc but jemalloc was not found: run tools/install-deps.sh "
                        "(Debian package libjemalloc-dev) or configure with -DMQKIT_MALLOC=system")
  endif()
  target_link_libraries(mqkit_program_malloc INTERFACE PkgConfig::JEMALLOC)
elseif(NOT MQKIT_MALLOC STREQUAL "system" AND NOT MQKIT_MALLOC STREQUAL "jemalloc")
  message(FATAL_ERROR "MQKIT_MALLOC must be jemalloc or system, not '${MQKIT_MALLOC}'")
endif()
