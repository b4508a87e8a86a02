# common/child_process.h, the tools' one child-process runner (the sweep's runs, doctor's probes). Its own
# program: the test defines kill() to see every signal the runner sends.
add_executable(child_process_tests ${CMAKE_CURRENT_LIST_DIR}/child_process_test.cc)
target_link_libraries(child_process_tests PRIVATE railtune_common_tools GTest::gtest_main)
gtest_discover_tests(child_process_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
