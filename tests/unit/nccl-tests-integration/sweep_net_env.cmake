# The network setting of a run (nccl-tests-integration/dataset/net_env.h, rules/net_env_rows.h): net_env from a
# sweep folder's manifest, `sweep parse --env` and NCCL's own lines, the dataset's key, the rules' groups per setting.
add_executable(sweep_net_env_tests ${CMAKE_CURRENT_LIST_DIR}/sweep_net_env_test.cc)
target_link_libraries(sweep_net_env_tests PRIVATE railtune_sweep_parse_outputs railtune_sweep_rules GTest::gtest_main)
gtest_discover_tests(sweep_net_env_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
