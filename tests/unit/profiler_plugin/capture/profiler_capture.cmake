# The profiler's event capture (profiler_plugin/capture): NCCL's event order driven straight into the
# engine, with a recording sink; the thread tests are meant for the TSan build as well.
add_executable(profiler_capture_tests
  ${CMAKE_CURRENT_LIST_DIR}/profiler_capture_config_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/profiler_capture_ring_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/profiler_capture_rules_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/profiler_capture_inflight_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/profiler_capture_threads_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/profiler_capture_v7_test.cc)
target_link_libraries(profiler_capture_tests PRIVATE railtune_profiler_capture GTest::gtest_main)
gtest_discover_tests(profiler_capture_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
