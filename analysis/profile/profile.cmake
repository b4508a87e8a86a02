# railtune_profile_analysis: `railtune profile stragglers` and `railtune profile hangs`: the
# tolerant, threaded log reader (a simdjson fast path for collective lines, the strict readers for the
# rest), the straggler and hang analyses, and their renderers.
add_library(railtune_profile_analysis STATIC
  ${CMAKE_CURRENT_LIST_DIR}/fast_collective.cc
  ${CMAKE_CURRENT_LIST_DIR}/file_reader.cc
  ${CMAKE_CURRENT_LIST_DIR}/logs.cc
  ${CMAKE_CURRENT_LIST_DIR}/collectives.cc
  ${CMAKE_CURRENT_LIST_DIR}/clocks.cc
  ${CMAKE_CURRENT_LIST_DIR}/lateness.cc
  ${CMAKE_CURRENT_LIST_DIR}/phase_causes.cc
  ${CMAKE_CURRENT_LIST_DIR}/tag_groups.cc
  ${CMAKE_CURRENT_LIST_DIR}/tag_groups_render.cc
  ${CMAKE_CURRENT_LIST_DIR}/stragglers.cc
  ${CMAKE_CURRENT_LIST_DIR}/stragglers_render.cc
  ${CMAKE_CURRENT_LIST_DIR}/losses.cc
  ${CMAKE_CURRENT_LIST_DIR}/progress.cc
  ${CMAKE_CURRENT_LIST_DIR}/progress_gaps.cc
  ${CMAKE_CURRENT_LIST_DIR}/hangs.cc
  ${CMAKE_CURRENT_LIST_DIR}/hangs_link.cc
  ${CMAKE_CURRENT_LIST_DIR}/hangs_graph.cc
  ${CMAKE_CURRENT_LIST_DIR}/hangs_tree.cc
  ${CMAKE_CURRENT_LIST_DIR}/hangs_render.cc)
target_link_libraries(railtune_profile_analysis PUBLIC railtune_ingest railtune_formats railtune_common
  PRIVATE simdjson::simdjson nlohmann_json::nlohmann_json Threads::Threads)

