# The libraries of the CLI side, as railtune_yaml_cpp and railtune_pugixml. The CLI is run on nodes and
# inside training images too (railtune doctor), so by default it is built like the plugins: libstdc++
# static, and yaml-cpp and pugixml from their static archives, so that it needs glibc (the floor),
# libgcc_s, and only one library of its own, simdjson, which the packages carry beside the plugins
# (Debian ships no static simdjson). RAILTUNE_PORTABLE_CLI=OFF links Debian's shared libraries.
# Sanitizer builds always do: their runtimes expect the shared C++ runtime.
find_package(yaml-cpp REQUIRED)
find_package(pugixml REQUIRED)
find_package(simdjson REQUIRED GLOBAL)

set(_portable_default ON)
if(RAILTUNE_SANITIZED)
  set(_portable_default OFF)
endif()
option(RAILTUNE_PORTABLE_CLI "Link the CLI with static libstdc++, yaml-cpp and pugixml" ${_portable_default})
if(RAILTUNE_PORTABLE_CLI)
  find_library(RAILTUNE_YAML_CPP_ARCHIVE NAMES libyaml-cpp.a)
  if(NOT RAILTUNE_YAML_CPP_ARCHIVE OR NOT TARGET pugixml::static)
    message(WARNING "RAILTUNE_PORTABLE_CLI: no static yaml-cpp or pugixml found; the CLI links the shared ones")
    set(RAILTUNE_PORTABLE_CLI OFF CACHE BOOL "" FORCE)
  endif()
endif()

add_library(railtune_yaml_cpp INTERFACE)
add_library(railtune_pugixml INTERFACE)
if(RAILTUNE_PORTABLE_CLI)
  add_library(railtune_yaml_cpp_archive STATIC IMPORTED)
  get_target_property(_yaml_include yaml-cpp INTERFACE_INCLUDE_DIRECTORIES)
  set_target_properties(railtune_yaml_cpp_archive PROPERTIES IMPORTED_LOCATION ${RAILTUNE_YAML_CPP_ARCHIVE}
                                                             INTERFACE_INCLUDE_DIRECTORIES "${_yaml_include}")
  target_link_libraries(railtune_yaml_cpp INTERFACE railtune_yaml_cpp_archive)
  target_link_libraries(railtune_pugixml INTERFACE pugixml::static)
else()
  target_link_libraries(railtune_yaml_cpp INTERFACE yaml-cpp)
  target_link_libraries(railtune_pugixml INTERFACE pugixml::pugixml)
endif()

# The shared simdjson the CLI needs, to be installed beside it: its file and its soname.
foreach(_config "" _RELWITHDEBINFO _RELEASE _NONE _DEBUG)
  get_target_property(_location simdjson::simdjson IMPORTED_LOCATION${_config})
  get_target_property(_soname simdjson::simdjson IMPORTED_SONAME${_config})
  if(_location AND _soname)
    set(RAILTUNE_SIMDJSON_FILE ${_location})
    set(RAILTUNE_SIMDJSON_SONAME ${_soname})
    break()
  endif()
endforeach()
