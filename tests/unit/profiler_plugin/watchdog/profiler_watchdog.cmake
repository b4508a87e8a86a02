# The profiler's hang watchdog (profiler_plugin/watchdog) against fake sources and sinks, and the
# emulator's NCCL profiler event order (emulator/profiler_sequence) against a recording profiler.
add_executable(profiler_watchdog_tests
  ${CMAKE_CURRENT_LIST_DIR}/profiler_watchdog_scan_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/profiler_watchdog_report_test.cc)
target_link_libraries(profiler_watchdog_tests PRIVATE railtune_profiler_watchdog GTest::gtest_main)
gtest_discover_tests(profiler_watchdog_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30
                     PROPERTIES TIMEOUT 120)

add_executable(emu_profiler_sequence_tests ${CMAKE_CURRENT_LIST_DIR}/emu_profiler_sequence_test.cc)
target_link_libraries(emu_profiler_sequence_tests PRIVATE railtune_emulator GTest::gtest_main)
target_compile_definitions(emu_profiler_sequence_tests PRIVATE RAILTUNE_PLUGIN_DIR="${RAILTUNE_PLUGIN_DIR}")
add_dependencies(emu_profiler_sequence_tests railtune_profiler_plugin)  # the real library it drives
gtest_discover_tests(emu_profiler_sequence_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
