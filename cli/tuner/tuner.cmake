# `railtune tuner` (tuner.cc, decisions.cc) and the tuner part of `railtune demo` (../demo/tuner.cc).
# The computation is a library so that tests/cli can call it directly; the report, its communicator and its
# output formats are the emulator's (emulator/tuner_decisions/).
find_package(nlohmann_json 3 REQUIRED)
add_library(railtune_cli_tuner STATIC
  ${CMAKE_CURRENT_LIST_DIR}/compute.cc
  ${CMAKE_CURRENT_LIST_DIR}/fit_column.cc
  ${CMAKE_CURRENT_LIST_DIR}/../demo/tuner.cc)
target_link_libraries(railtune_cli_tuner PUBLIC railtune_tuner_decisions railtune_nccl_model railtune_tuner_rules
                      railtune_tuner_model railtune_tuner_engine railtune_formats_tuner_model railtune_fabric PRIVATE nlohmann_json::nlohmann_json)
target_sources(railtune PRIVATE ${CMAKE_CURRENT_LIST_DIR}/tuner.cc ${CMAKE_CURRENT_LIST_DIR}/decisions.cc)
target_link_libraries(railtune PRIVATE railtune_cli_tuner)
