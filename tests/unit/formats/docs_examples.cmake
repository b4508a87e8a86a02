# Every example file under docs/formats/ read by its own reader, as a user's copy of it would be: the
# fabric YAML by the cluster-description reader and `railtune topo check`'s checks, the rail map by the
# plugins' reader, the tuner rules, the fitted model, path log and profiler logs by theirs. A new example file fails the
# test until it is given its reader (or listed as a format railtune writes but never reads).
add_executable(docs_examples_tests ${CMAKE_CURRENT_LIST_DIR}/docs_examples_test.cc)
target_link_libraries(docs_examples_tests PRIVATE railtune_fabric_yaml railtune_topo_xml railtune_formats_tuner_rules
                                                  railtune_formats_tuner_model
                                                  railtune_formats_net_env
                                                  railtune_formats railtune_sweep_run GTest::gtest_main)
target_compile_definitions(docs_examples_tests PRIVATE RAILTUNE_DOCS_FORMATS="${PROJECT_SOURCE_DIR}/docs/formats")
gtest_discover_tests(docs_examples_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
