# The tuner's rules (tuner_plugin/rules): the CSV reader through the linear scan, bytes per rank and the
# scope, the index against the linear scan, goldens (the JSON reader's tests: tests/unit/formats).
# Own executable: it replaces operator new to count allocations per lookup.
add_executable(tuner_rules_tests
  ${CMAKE_CURRENT_LIST_DIR}/tuner_rules_csv_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/tuner_rules_index_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/tuner_rules_bytes_test.cc)
target_link_libraries(tuner_rules_tests PRIVATE railtune_tuner_rules GTest::gtest_main)
target_compile_definitions(tuner_rules_tests PRIVATE
  RAILTUNE_SHARED_DATA="${RAILTUNE_SHARED_DATA_DIR}"
  RAILTUNE_TUNER_RULES_GOLDEN="${PROJECT_SOURCE_DIR}/tests/data/golden/tuner_rules"
  RAILTUNE_TUNER_RULES_EXAMPLE="${PROJECT_SOURCE_DIR}/docs/formats/tuner-rules.example.json")
gtest_discover_tests(tuner_rules_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
