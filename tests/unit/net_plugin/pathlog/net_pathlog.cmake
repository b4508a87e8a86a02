# The net plugin's handshake header and path log (net_plugin/pathlog): header layout and rejections,
# records against the golden example (RAILTUNE_UPDATE_GOLDEN=1 rewrites it), the writer's thread.
# Own executable: the writer test replaces operator new to count allocations per thread.
add_executable(net_pathlog_tests
  ${CMAKE_CURRENT_LIST_DIR}/net_pathlog_handshake_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/net_pathlog_records_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/net_pathlog_verbs_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/net_pathlog_writer_test.cc)
target_link_libraries(net_pathlog_tests PRIVATE railtune_net_pathlog GTest::gtest_main)
target_compile_definitions(net_pathlog_tests PRIVATE
  RAILTUNE_PATH_LOG_EXAMPLE="${PROJECT_SOURCE_DIR}/docs/formats/path-log.example.jsonl"
  RAILTUNE_PATH_LOG_GOLDEN="${PROJECT_SOURCE_DIR}/tests/data/golden/path_log")
gtest_discover_tests(net_pathlog_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)

# The schema accepts the golden example.
add_test(NAME unit.net_pathlog_schema_accepts_example
         COMMAND ${PROJECT_SOURCE_DIR}/tests/cli/validate_jsonl.py
                 ${PROJECT_SOURCE_DIR}/docs/formats/path-log.schema.json
                 ${PROJECT_SOURCE_DIR}/docs/formats/path-log.example.jsonl --min-records 9)
