# `railtune paths render`'s library (cli/paths/path_render*.cc): the graph, the rack aggregation, the
# layout, the goldens of the hand-built job (tests/data/golden/paths_render/; RAILTUNE_UPDATE_GOLDEN=1
# rewrites them) and a 2,048-tray job for size and speed.
if(TARGET railtune_paths_render)
  add_executable(paths_render_tests
    ${CMAKE_CURRENT_LIST_DIR}/paths_render_graph_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/paths_render_golden_test.cc
    ${CMAKE_CURRENT_LIST_DIR}/paths_render_scale_test.cc)
  find_package(pugixml REQUIRED)  # the SVG must be well-formed XML
  target_link_libraries(paths_render_tests PRIVATE railtune_paths_render pugixml::pugixml GTest::gtest_main)
  target_compile_definitions(paths_render_tests PRIVATE
    RAILTUNE_PATHS_RENDER_GOLDEN="${PROJECT_SOURCE_DIR}/tests/data/golden/paths_render")
  if(RAILTUNE_SANITIZED)  # the scale test's time limit holds for optimised, uninstrumented builds only
    target_compile_definitions(paths_render_tests PRIVATE RAILTUNE_TEST_SANITIZED)
  endif()
  gtest_discover_tests(paths_render_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
endif()
