# The emulated net job's pure parts (emulator/net_job): schedule, placement, chunked transfers and
# verification, and the verbs job's builder. The job itself, through the real plugin, is tests/e2e/net_job_test.cc.
add_executable(net_job_unit_tests
  ${CMAKE_CURRENT_LIST_DIR}/net_job_schedule_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/net_job_plan_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/net_job_transfer_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/net_job_verbs_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/net_job_warnings_test.cc)
target_link_libraries(net_job_unit_tests PRIVATE railtune_emulator_net_job nlohmann_json::nlohmann_json GTest::gtest_main)
gtest_discover_tests(net_job_unit_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
