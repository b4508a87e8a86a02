# railtune_sweep_compare's renderers (nccl-tests-integration/compare/render_*.cc): the text table, the HTML
# page and the SVG plot of `railtune sweep compare`, on reports built by hand.
add_executable(sweep_render_tests ${CMAKE_CURRENT_LIST_DIR}/sweep_render_test.cc)
target_link_libraries(sweep_render_tests PRIVATE railtune_sweep_compare GTest::gtest_main)
gtest_discover_tests(sweep_render_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
