# railtune_paths: reading a folder of path logs into joined jobs, and `railtune paths check`.
# CLI code: a plain static library, also linked by tests/unit/paths.cmake and the fuzz target.
find_package(nlohmann_json 3 REQUIRED)
find_package(simdjson REQUIRED GLOBAL)  # GLOBAL: tests and fuzz targets link it through railtune_paths
# railtune_log_input: the folder walk and the streaming line reader that `paths` and `profile` share.
add_library(railtune_log_input STATIC
  ${CMAKE_CURRENT_LIST_DIR}/log_folder.cc
  ${CMAKE_CURRENT_LIST_DIR}/log_lines.cc)
add_library(railtune_paths STATIC
  ${CMAKE_CURRENT_LIST_DIR}/path_file.cc
  ${CMAKE_CURRENT_LIST_DIR}/path_fast_parse.cc
  ${CMAKE_CURRENT_LIST_DIR}/path_join.cc
  ${CMAKE_CURRENT_LIST_DIR}/path_pair.cc
  ${CMAKE_CURRENT_LIST_DIR}/path_load.cc
  ${CMAKE_CURRENT_LIST_DIR}/path_check.cc
  ${CMAKE_CURRENT_LIST_DIR}/path_check_map.cc
  ${CMAKE_CURRENT_LIST_DIR}/path_check_violations.cc
  ${CMAKE_CURRENT_LIST_DIR}/path_check_notes.cc
  ${CMAKE_CURRENT_LIST_DIR}/path_report_table.cc
  ${CMAKE_CURRENT_LIST_DIR}/path_report_json.cc)
target_link_libraries(railtune_paths PUBLIC railtune_net_pathlog railtune_formats railtune_log_input
                      PRIVATE nlohmann_json::nlohmann_json simdjson::simdjson)
target_link_libraries(railtune PRIVATE railtune_paths)
