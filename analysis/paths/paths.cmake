# railtune_paths: reading a folder of path logs into joined jobs, and `railtune paths check`.
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
  ${CMAKE_CURRENT_LIST_DIR}/path_check_verbs.cc
  ${CMAKE_CURRENT_LIST_DIR}/path_report_table.cc
  ${CMAKE_CURRENT_LIST_DIR}/path_report_json.cc)
target_link_libraries(railtune_paths PUBLIC railtune_ingest railtune_nccl_log railtune_formats
                      PRIVATE nlohmann_json::nlohmann_json simdjson::simdjson)
