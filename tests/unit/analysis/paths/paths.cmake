# railtune_paths (cli/paths/): loading, joining, pairing, the check, its table and JSON.
# Goldens: tests/data/golden/paths_check/; RAILTUNE_UPDATE_GOLDEN=1 ctest -R '^unit\.PathsReport\.' rewrites them.
add_executable(paths_tests
  ${CMAKE_CURRENT_LIST_DIR}/paths_load_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/paths_check_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/paths_report_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/paths_fast_parse_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/paths_log_input_test.cc)
target_link_libraries(paths_tests PRIVATE railtune_paths GTest::gtest_main)
target_compile_definitions(paths_tests PRIVATE
  RAILTUNE_PATH_LOG_EXAMPLE="${PROJECT_SOURCE_DIR}/docs/formats/path-log.example.jsonl"
  RAILTUNE_PATHS_TEST_DATA="${PROJECT_SOURCE_DIR}/tests/data"
  RAILTUNE_PATHS_GOLDEN="${PROJECT_SOURCE_DIR}/tests/data/golden/paths_check")
gtest_discover_tests(paths_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
