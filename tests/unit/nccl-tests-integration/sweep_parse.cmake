# railtune_sweep_parse (nccl-tests-integration/parse/): nccl-tests' text output of every era, and the published
# samples of the shared data folder.
add_executable(sweep_parse_tests ${CMAKE_CURRENT_LIST_DIR}/sweep_parse_test.cc)
target_link_libraries(sweep_parse_tests PRIVATE railtune_sweep_parse GTest::gtest_main)
target_compile_definitions(sweep_parse_tests PRIVATE RAILTUNE_SHARED_DATA="${RAILTUNE_SHARED_DATA_DIR}")
gtest_discover_tests(sweep_parse_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
