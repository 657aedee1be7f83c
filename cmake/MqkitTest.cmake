# mqkit_add_test(<name> SOURCES ... [LIBS ...] [LABELS ...])
# One GoogleTest executable registered with ctest (FIXTURES_REQUIRED: ctest fixtures to run first); tests are discovered per case so that a
# failure names the case. MQKIT_PLUGIN_DIR and MQKIT_BIN_DIR point at the build's artefacts.
function(mqkit_add_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT;FIXTURES_REQUIRED" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE GTest::gtest GTest::gtest_main GTest::gmock mqkit_warnings ${ARG_LIBS})
  target_compile_definitions(${name} PRIVATE
    MQKIT_PLUGIN_DIR="${MQKIT_PLUGIN_OUTPUT_DIR}"
    MQKIT_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}"
    MQKIT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 120)
  endif()
  set(properties TIMEOUT ${ARG_TIMEOUT})
  if(ARG_LABELS)
    list(APPEND properties LABELS ${ARG_LABELS})
  endif()
  if(ARG_FIXTURES_REQUIRED)
    list(APPEND properties FIXTURES_REQUIRED ${ARG_FIXTURES_REQUIRED})
  endif()
  if(MQKIT_SANITIZE MATCHES "thread")
    # Debian's gRPC, Abseil, protobuf and OpenSSL are not built with TSan: see the file.
    list(APPEND properties ENVIRONMENT "TSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tools/tsan-suppressions.txt")
  endif()
  include(GoogleTest)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES ${properties})
endfunction()
