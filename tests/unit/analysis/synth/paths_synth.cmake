# `railtune paths synth` (analysis/synth/): placement and rings, offenders and the timing model, the files it
# writes read back by the plugins' strict readers, and seed reproducibility.
add_executable(paths_synth_tests
  ${CMAKE_CURRENT_LIST_DIR}/paths_synth_placement_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/paths_synth_timing_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/paths_synth_records_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/paths_synth_named_test.cc)
find_package(nlohmann_json 3 REQUIRED)
target_link_libraries(paths_synth_tests PRIVATE railtune_synth nlohmann_json::nlohmann_json GTest::gtest_main)
target_compile_definitions(paths_synth_tests PRIVATE RAILTUNE_SYNTH_DATA="${PROJECT_SOURCE_DIR}/tests/data/synth")
gtest_discover_tests(paths_synth_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
