# The fitted model in the tuner (tuner_plugin/fitted): which fit covers a communicator, and the per-cell maps a
# plan applies. Its own small executable, so that a change here rebuilds only it.
add_executable(tuner_fitted_tests ${CMAKE_CURRENT_LIST_DIR}/fitted_coverage_test.cc)
target_link_libraries(tuner_fitted_tests PRIVATE railtune_tuner_engine GTest::gtest_main)
target_compile_definitions(tuner_fitted_tests PRIVATE RAILTUNE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
gtest_discover_tests(tuner_fitted_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
