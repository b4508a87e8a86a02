# railtune_synth: `railtune paths synth`, realistic path logs and profiler logs of a job of N
# ranks written with the formats' own renderers (formats/), and the truth of what was injected.
add_library(railtune_synth STATIC
  ${CMAKE_CURRENT_LIST_DIR}/placement.cc
  ${CMAKE_CURRENT_LIST_DIR}/offenders.cc
  ${CMAKE_CURRENT_LIST_DIR}/timeline.cc
  ${CMAKE_CURRENT_LIST_DIR}/connections.cc
  ${CMAKE_CURRENT_LIST_DIR}/synth_job.cc
  ${CMAKE_CURRENT_LIST_DIR}/path_records.cc
  ${CMAKE_CURRENT_LIST_DIR}/collective_records.cc
  ${CMAKE_CURRENT_LIST_DIR}/write_files.cc
  ${CMAKE_CURRENT_LIST_DIR}/truth.cc
  ${CMAKE_CURRENT_LIST_DIR}/rail_map_source.cc
  ${CMAKE_CURRENT_LIST_DIR}/synth_run.cc)
target_link_libraries(railtune_synth
  PUBLIC railtune_formats railtune_common
  PRIVATE railtune_fabric_yaml railtune_topo_xml nlohmann_json::nlohmann_json Threads::Threads)
