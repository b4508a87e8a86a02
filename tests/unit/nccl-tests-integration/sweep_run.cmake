# railtune_sweep_run (nccl-tests-integration/run/): the request checked, the plan of a sweep, the classification
# of each run's end, the manifest, the --env matrix, and the runner driving the stand-in nccl-tests binary of tests/data/sweep (python3, no GPU).
add_executable(sweep_run_tests
  ${CMAKE_CURRENT_LIST_DIR}/sweep_run_plan_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/sweep_run_spec_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/sweep_run_outcome_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/sweep_run_output_scan_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/sweep_run_manifest_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/sweep_run_runner_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/sweep_run_env_matrix_test.cc)
target_link_libraries(sweep_run_tests PRIVATE railtune_sweep_run railtune_formats_tuner_rules GTest::gtest_main)
target_compile_definitions(sweep_run_tests PRIVATE RAILTUNE_SWEEP_DATA="${PROJECT_SOURCE_DIR}/tests/data/sweep"
                                                   RAILTUNE_DOCS_FORMATS="${PROJECT_SOURCE_DIR}/docs/formats")
gtest_discover_tests(sweep_run_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
# The recorded tables are what tests/data/sweep/render_tables.py renders from the published figures.
add_test(NAME unit.sweep_run_recorded_tables_current
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/data/sweep/render_tables.py --check)
# The stand-in's network settings, second shape and NCCL INFO lines behave as tests/data/sweep/net_settings.py says.
add_test(NAME unit.sweep_standin_net_settings
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/data/sweep/standin_check.py)
