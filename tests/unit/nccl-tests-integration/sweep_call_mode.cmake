# nccl-tests' -R/-D/-x through the sweep: read, checked, recorded in the manifest and the dataset, and the rows NCCL
# may have run without the tuner left out of rules and fits (dataset/call_mode.h, run/call_options.h).
add_executable(sweep_call_mode_tests ${CMAKE_CURRENT_LIST_DIR}/sweep_call_mode_test.cc)
target_link_libraries(sweep_call_mode_tests PRIVATE railtune_sweep_rules railtune_sweep_run GTest::gtest_main)
gtest_discover_tests(sweep_call_mode_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
