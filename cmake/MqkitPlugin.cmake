# mqkit_add_plugin(<category> <name> SOURCES ... [LIBS ...])
#
# Builds one policy plugin as a MODULE library named mqkit-<category>-<name>.so into the shared
# plugin output directory. A plugin links plugin-api only (never the kernel or the SDK); the
# option MQKIT_PLUGIN_<CATEGORY>_<NAME> (default ON) switches it and its tests off together.
function(mqkit_add_plugin category name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  string(TOUPPER "MQKIT_PLUGIN_${category}_${name}" option_name)
  string(REPLACE "-" "_" option_name "${option_name}")
  option(${option_name} "Build the ${category} plugin '${name}'" ON)
  if(NOT ${option_name})
    return()
  endif()
  set(target mqkit-${category}-${name})
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE mqkit::plugin-api mqkit_warnings ${ARG_LIBS})
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    OUTPUT_NAME ${target}
    LIBRARY_OUTPUT_DIRECTORY ${MQKIT_PLUGIN_OUTPUT_DIR})
  # Refuse undefined symbols at link time instead of at dlopen time.
  target_link_options(${target} PRIVATE -Wl,--no-undefined)
  install(TARGETS ${target} LIBRARY DESTINATION lib/mqkit/plugins)
  set_property(GLOBAL APPEND PROPERTY MQKIT_ALL_PLUGINS ${target})
endfunction()

# Makes `target` depend on every plugin .so (tests and tools that load them from the plugin
# output directory). Deferred to the end of the top-level directory so that plugins declared
# later in the tree are included.
function(mqkit_depend_on_all_plugins target)
  # Deferred-call arguments are expanded when the call runs, so bake the name in now.
  cmake_language(EVAL CODE
    "cmake_language(DEFER DIRECTORY \"${CMAKE_SOURCE_DIR}\" CALL _mqkit_add_plugin_dependencies \"${target}\")")
endfunction()

function(_mqkit_add_plugin_dependencies target)
  get_property(plugins GLOBAL PROPERTY MQKIT_ALL_PLUGINS)
  if(plugins)
    add_dependencies(${target} ${plugins})
  endif()
endfunction()
