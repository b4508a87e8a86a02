# railtune_fabric_io: the rail map reader the plugins link (RAILTUNE_RAIL_MAP). Its only dependency is
# header-only nlohmann-json, so it is PIC with hidden visibility like everything that goes into a plugin.
find_package(nlohmann_json 3 REQUIRED)
railtune_add_plugin_code(railtune_fabric_io STATIC ${CMAKE_CURRENT_SOURCE_DIR}/rail_map.cc)
target_link_libraries(railtune_fabric_io PUBLIC nlohmann_json::nlohmann_json railtune_common)  # common/regular_file
