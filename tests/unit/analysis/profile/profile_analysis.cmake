# `railtune profile` (cli/profile/): the tolerant log reader and its fast path, the straggler and hang
# analyses, and the golden outputs: tests/data/golden/profile_analysis/, the --json examples in
# docs/formats/ and the stalled-ring fixture tests/data/profile_analysis/ring-hang/
# (RAILTUNE_UPDATE_GOLDEN=1 ctest -R '^unit\.ProfileGolden' rewrites them).
add_executable(profile_analysis_tests
  ${CMAKE_CURRENT_LIST_DIR}/profile_analysis_reader_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/profile_analysis_stragglers_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/profile_analysis_hangs_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/profile_analysis_gaps_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/profile_analysis_root_causes_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/profile_analysis_tree_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/profile_analysis_golden_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/profile_analysis_input_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/profile_analysis_v7_test.cc)
target_link_libraries(profile_analysis_tests PRIVATE railtune_profile_analysis railtune_test_support_profile GTest::gtest_main)
target_compile_definitions(profile_analysis_tests PRIVATE
  RAILTUNE_FORMATS_DIR="${PROJECT_SOURCE_DIR}/docs/formats"
  RAILTUNE_PROFILE_ANALYSIS_DATA="${PROJECT_SOURCE_DIR}/tests/data/profile_analysis"
  RAILTUNE_PROFILE_ANALYSIS_GOLDEN="${PROJECT_SOURCE_DIR}/tests/data/golden/profile_analysis")
gtest_discover_tests(profile_analysis_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
