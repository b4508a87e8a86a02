# The env plugin's table (env_plugin/host_table.h over formats/host_nccl_env.h) without loading the .so; the .so
# itself is tests/e2e's (env_plugin_*). Single-threaded, native: not in the TSan or cross sets.
add_executable(env_plugin_unit_tests ${CMAKE_CURRENT_LIST_DIR}/host_table_test.cc)
target_link_libraries(env_plugin_unit_tests PRIVATE railtune_env_table GTest::gtest_main)
target_compile_definitions(env_plugin_unit_tests PRIVATE RAILTUNE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
gtest_discover_tests(env_plugin_unit_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
