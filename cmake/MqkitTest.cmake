# mqkit_add_test(<name> SOURCES ... [LIBS ...] [LABELS ...])
# One GoogleTest executable registered with ctest; tests are discovered per case so that a
# failure names the case. MQKIT_PLUGIN_DIR and MQKIT_BIN_DIR point at the build's artefacts.
function(mqkit_add_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE GTest::gtest GTest::gtest_main GTest::gmock mqkit_warnings ${ARG_LIBS})
  target_compile_definitions(${name} PRIVATE
    MQKIT_PLUGIN_DIR="${MQKIT_PLUGIN_OUTPUT_DIR}"
    MQKIT_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}"
    MQKIT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 120)
  endif()
  include(GoogleTest)
  gtest_discover_tests(${name}
    DISCOVERY_TIMEOUT 60
    PROPERTIES TIMEOUT ${ARG_TIMEOUT} LABELS "${ARG_LABELS}")
endfunction()
