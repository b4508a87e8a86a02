# The measured network settings file (formats/net_env*, formats/measured_env): the reader against the documented
# example and every malformed case with its position, the writer's round trip, the choice of an entry for a
# cluster; the schema accepts the example.
add_executable(formats_net_env_tests ${CMAKE_CURRENT_LIST_DIR}/net_env_test.cc)
target_link_libraries(formats_net_env_tests PRIVATE railtune_formats_net_env GTest::gtest_main)
target_compile_definitions(formats_net_env_tests PRIVATE
  RAILTUNE_NET_ENV_EXAMPLE="${PROJECT_SOURCE_DIR}/docs/formats/net-env.example.json")
gtest_discover_tests(formats_net_env_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)

add_test(NAME unit.net_env_schema_accepts_example
         COMMAND ${PROJECT_SOURCE_DIR}/tests/support/validate_schema.py
                 ${PROJECT_SOURCE_DIR}/docs/formats/net-env.schema.json
                 ${PROJECT_SOURCE_DIR}/docs/formats/net-env.example.json)
