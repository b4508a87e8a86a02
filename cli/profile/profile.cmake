# railtune_profile_analysis: `railtune profile stragglers` and `railtune profile hangs`: the
# tolerant, threaded log reader (a simdjson fast path for collective lines, the strict readers for the
# rest), the straggler and hang analyses, and their renderers.
find_package(simdjson REQUIRED GLOBAL)  # GLOBAL: the fuzzer (tests/fuzz) compiles the fast reader in
find_package(nlohmann_json REQUIRED)
find_package(Threads REQUIRED)
add_library(railtune_profile_analysis STATIC
  ${CMAKE_CURRENT_LIST_DIR}/fast_collective.cc
  ${CMAKE_CURRENT_LIST_DIR}/line_source.cc
  ${CMAKE_CURRENT_LIST_DIR}/file_reader.cc
  ${CMAKE_CURRENT_LIST_DIR}/logs.cc
  ${CMAKE_CURRENT_LIST_DIR}/collectives.cc
  ${CMAKE_CURRENT_LIST_DIR}/lateness.cc
  ${CMAKE_CURRENT_LIST_DIR}/stragglers.cc
  ${CMAKE_CURRENT_LIST_DIR}/stragglers_render.cc
  ${CMAKE_CURRENT_LIST_DIR}/losses.cc
  ${CMAKE_CURRENT_LIST_DIR}/progress.cc
  ${CMAKE_CURRENT_LIST_DIR}/progress_gaps.cc
  ${CMAKE_CURRENT_LIST_DIR}/hangs.cc
  ${CMAKE_CURRENT_LIST_DIR}/hangs_link.cc
  ${CMAKE_CURRENT_LIST_DIR}/hangs_render.cc
  ${CMAKE_CURRENT_LIST_DIR}/command_support.cc)
target_link_libraries(railtune_profile_analysis PUBLIC railtune_profiler_output railtune_net_pathlog railtune_formats railtune_common
  railtune_log_input
  PRIVATE simdjson::simdjson nlohmann_json::nlohmann_json Threads::Threads)
target_link_libraries(railtune PRIVATE railtune_profile_analysis)

# Test support, not linked into railtune: the synthetic job of the tests and the scale measurement, and
# the check of the fast reader against the strict one (tests and fuzz_profile_logs). Measurements at
# scale use `railtune paths synth` (bench/run_paths_scale.sh).
add_library(railtune_profile_synthetic STATIC ${CMAKE_CURRENT_LIST_DIR}/synthetic_job.cc
  ${CMAKE_CURRENT_LIST_DIR}/fast_collective_check.cc)
target_link_libraries(railtune_profile_synthetic PUBLIC railtune_profile_analysis railtune_profiler_output PRIVATE nlohmann_json::nlohmann_json Threads::Threads)
