# The `paths` suite (eval/paths/paths_suite.h): railtune_paths and railtune_paths_render scored against injected
# truth, on jobs placed by analysis/synth.
add_library(railtune_eval_paths STATIC
  ${CMAKE_CURRENT_LIST_DIR}/paths_emulated.cc
  ${CMAKE_CURRENT_LIST_DIR}/paths_job.cc
  ${CMAKE_CURRENT_LIST_DIR}/paths_mangle.cc
  ${CMAKE_CURRENT_LIST_DIR}/paths_score.cc
  ${CMAKE_CURRENT_LIST_DIR}/paths_suite.cc)
target_link_libraries(railtune_eval_paths PUBLIC railtune_eval_common
                      PRIVATE railtune_emulator_net_job railtune_paths_render railtune_paths railtune_synth railtune_formats
                      nlohmann_json::nlohmann_json)
