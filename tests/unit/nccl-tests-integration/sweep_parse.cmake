# railtune_sweep_parse (nccl-tests-integration/parse/): nccl-tests' text output of every era, and the published
# samples of the shared data folder.
add_executable(sweep_parse_tests ${CMAKE_CURRENT_LIST_DIR}/sweep_parse_test.cc)
target_link_libraries(sweep_parse_tests PRIVATE railtune_sweep_parse GTest::gtest_main)
target_compile_definitions(sweep_parse_tests PRIVATE RAILTUNE_SHARED_DATA="${RAILTUNE_SHARED_DATA_DIR}")
gtest_discover_tests(sweep_parse_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)

# railtune_sweep_parse_outputs (nccl-tests-integration/dataset/parse_*.h): `sweep parse`'s jobs from files, folders and
# sweep folders, the ordered output, and the dataset written only when rows were read.
add_executable(sweep_parse_outputs_tests ${CMAKE_CURRENT_LIST_DIR}/sweep_parse_outputs_test.cc)
target_link_libraries(sweep_parse_outputs_tests PRIVATE railtune_sweep_parse_outputs GTest::gtest_main)
target_compile_definitions(sweep_parse_outputs_tests PRIVATE RAILTUNE_SWEEP_DATA="${PROJECT_SOURCE_DIR}/tests/data/sweep")
gtest_discover_tests(sweep_parse_outputs_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
