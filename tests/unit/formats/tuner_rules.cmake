# The tuner rules file format (formats/tuner_rules): railtune's JSON reader against the documented example,
# every key and its errors with positions; the schema accepts the example. (The CSV reader's tests stay with
# the tuner's, tests/unit/tuner_plugin/rules: they check it through the tuner's linear scan.)
add_executable(formats_tuner_rules_tests ${CMAKE_CURRENT_LIST_DIR}/tuner_rules_json_test.cc)
target_link_libraries(formats_tuner_rules_tests PRIVATE railtune_formats_tuner_rules GTest::gtest_main)
target_compile_definitions(formats_tuner_rules_tests PRIVATE
  RAILTUNE_TUNER_RULES_EXAMPLE="${PROJECT_SOURCE_DIR}/docs/formats/tuner-rules.example.json")
gtest_discover_tests(formats_tuner_rules_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)

# The schema accepts the documented example (the validator reads JSON as YAML).
add_test(NAME unit.tuner_rules_schema_accepts_example
         COMMAND ${PROJECT_SOURCE_DIR}/tests/support/validate_schema.py
                 ${PROJECT_SOURCE_DIR}/docs/formats/tuner-rules.schema.json
                 ${PROJECT_SOURCE_DIR}/docs/formats/tuner-rules.example.json)
