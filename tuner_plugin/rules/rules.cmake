# railtune_tuner_rules: tuning rules (NCCL example CSV and railtune JSON readers) and their lookup
# index. It goes into libnccl-tuner-railtune.so, hence PIC, hidden visibility and no dependency
# beyond railtune_common and header-only nlohmann-json.
find_package(nlohmann_json 3 REQUIRED)
railtune_add_plugin_code(railtune_tuner_rules STATIC
  ${CMAKE_CURRENT_LIST_DIR}/rule.cc
  ${CMAKE_CURRENT_LIST_DIR}/nccl_csv.cc
  ${CMAKE_CURRENT_LIST_DIR}/json_positions.cc
  ${CMAKE_CURRENT_LIST_DIR}/railtune_json.cc
  ${CMAKE_CURRENT_LIST_DIR}/rules_file.cc
  ${CMAKE_CURRENT_LIST_DIR}/rule_index.cc)
target_link_libraries(railtune_tuner_rules PUBLIC railtune_tuner_types railtune_common PRIVATE nlohmann_json::nlohmann_json)
