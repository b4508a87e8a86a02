# railtune_nccl_log (analysis/nccl_log/): NCCL INFO lines, the logs of a job, the import and the profile join.
add_executable(nccl_log_tests
  ${CMAKE_CURRENT_LIST_DIR}/nccl_log_line_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/nccl_log_line_scan_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/nccl_log_import_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/nccl_log_profile_join_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/nccl_log_real_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/nccl_log_merge_test.cc)
target_link_libraries(nccl_log_tests PRIVATE railtune_nccl_log GTest::gtest_main)
target_compile_definitions(nccl_log_tests PRIVATE RAILTUNE_SHARED_DATA="${RAILTUNE_SHARED_DATA_DIR}")
gtest_discover_tests(nccl_log_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
