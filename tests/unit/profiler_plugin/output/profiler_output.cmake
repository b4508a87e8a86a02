# The profiler's writers (profiler_plugin/output): records against the golden examples
# (RAILTUNE_UPDATE_GOLDEN=1 rewrites them), the readers' errors, the Chrome trace, the Prometheus
# textfile, the writer's thread, and the allocation-free renderers against the nlohmann::json ones
# they replaced (profiler_output_oracle.cc). Own executable: the writer test replaces operator new to count
# allocations.
add_executable(profiler_output_tests
  ${CMAKE_CURRENT_LIST_DIR}/profiler_output_records_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/profiler_output_trace_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/profiler_output_prometheus_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/profiler_output_writer_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/profiler_output_removed_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/profiler_output_render_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/profiler_output_oracle.cc)
target_link_libraries(profiler_output_tests PRIVATE railtune_profiler_output GTest::gtest_main)
target_compile_definitions(profiler_output_tests PRIVATE
  RAILTUNE_FORMATS_DIR="${PROJECT_SOURCE_DIR}/docs/formats"
  RAILTUNE_PROFILE_GOLDEN="${PROJECT_SOURCE_DIR}/tests/data/golden/profile")
gtest_discover_tests(profiler_output_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)

# The schemas accept the golden examples.
add_test(NAME unit.profiler_output_schema_accepts_collectives
         COMMAND ${PROJECT_SOURCE_DIR}/tests/cli/validate_jsonl.py
                 ${PROJECT_SOURCE_DIR}/docs/formats/profile-collectives.schema.json
                 ${PROJECT_SOURCE_DIR}/docs/formats/profile-collectives.example.jsonl --min-records 6)
add_test(NAME unit.profiler_output_schema_accepts_net
         COMMAND ${PROJECT_SOURCE_DIR}/tests/cli/validate_jsonl.py
                 ${PROJECT_SOURCE_DIR}/docs/formats/profile-net.schema.json
                 ${PROJECT_SOURCE_DIR}/docs/formats/profile-net.example.jsonl --min-records 3)
