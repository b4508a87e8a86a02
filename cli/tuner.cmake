# `railtune tuner` (tuner.cc, tuner_decisions.cc) and the tuner part of `railtune demo` (demo_tuner.cc).
# The computation and the output formats are a library so that tests/cli can call them directly.
find_package(nlohmann_json 3 REQUIRED)
add_library(railtune_cli_tuner STATIC
  ${CMAKE_CURRENT_LIST_DIR}/tuner_shape.cc
  ${CMAKE_CURRENT_LIST_DIR}/tuner_compute.cc
  ${CMAKE_CURRENT_LIST_DIR}/tuner_format.cc
  ${CMAKE_CURRENT_LIST_DIR}/demo_tuner.cc)
target_link_libraries(railtune_cli_tuner PUBLIC railtune_nccl_model railtune_tuner_rules railtune_tuner_model railtune_fabric
                      PRIVATE nlohmann_json::nlohmann_json)
target_sources(railtune PRIVATE ${CMAKE_CURRENT_LIST_DIR}/tuner.cc ${CMAKE_CURRENT_LIST_DIR}/tuner_decisions.cc)
target_link_libraries(railtune PRIVATE railtune_cli_tuner)
