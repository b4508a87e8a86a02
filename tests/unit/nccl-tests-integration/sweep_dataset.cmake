# railtune_sweep_dataset and railtune_sweep_rules (nccl-tests-integration/dataset/, rules/, compare/report.cc): rows
# from nccl-tests runs, the dataset's JSONL, the rules derived from it (read back through the tuner's own rules
# reader) and the comparison report.
add_executable(sweep_dataset_tests ${CMAKE_CURRENT_LIST_DIR}/sweep_dataset_test.cc ${CMAKE_CURRENT_LIST_DIR}/sweep_cluster_test.cc ${CMAKE_CURRENT_LIST_DIR}/sweep_rules_test.cc
               ${CMAKE_CURRENT_LIST_DIR}/sweep_tuner_rules_json_test.cc)
target_link_libraries(sweep_dataset_tests PRIVATE railtune_sweep_compare GTest::gtest_main)
target_compile_definitions(sweep_dataset_tests PRIVATE RAILTUNE_SHARED_DATA="${RAILTUNE_SHARED_DATA_DIR}")
gtest_discover_tests(sweep_dataset_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
