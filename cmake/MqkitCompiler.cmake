# Compiler settings shared by every target: C++20, hidden visibility (a plugin exports exactly
# one symbol), warnings on, ccache when present.
set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_CXX_VISIBILITY_PRESET hidden)
set(CMAKE_VISIBILITY_INLINES_HIDDEN ON)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)

if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "Build type" FORCE)
endif()

find_program(MQKIT_CCACHE ccache)
if(MQKIT_CCACHE)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${MQKIT_CCACHE})
endif()

set(MQKIT_WARNING_FLAGS
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
  -Wunused -Woverloaded-virtual -Wformat=2 -Wimplicit-fallthrough)
add_library(mqkit_warnings INTERFACE)
target_compile_options(mqkit_warnings INTERFACE ${MQKIT_WARNING_FLAGS})

set(MQKIT_SANITIZE "" CACHE STRING "Sanitizers: 'address,undefined' or 'thread' (empty = none)")
if(MQKIT_SANITIZE)
  add_compile_options(-fsanitize=${MQKIT_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${MQKIT_SANITIZE})
endif()
