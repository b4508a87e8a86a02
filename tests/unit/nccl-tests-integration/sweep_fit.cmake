# railtune_sweep_fit (nccl-tests-integration/fit/): points from datasets, measured lines, the constrained solver,
# regret scoring, the validation splits, the corrections and the refinement, on data made by hand; the whole fit
# against injected truth rendered through NCCL's emulated model (sweep_fit_truth_test.cc).
add_executable(sweep_fit_tests ${CMAKE_CURRENT_LIST_DIR}/sweep_fit_points_test.cc
               ${CMAKE_CURRENT_LIST_DIR}/sweep_fit_lines_test.cc ${CMAKE_CURRENT_LIST_DIR}/sweep_fit_nnls_test.cc
               ${CMAKE_CURRENT_LIST_DIR}/sweep_fit_regret_test.cc ${CMAKE_CURRENT_LIST_DIR}/sweep_fit_splits_test.cc
               ${CMAKE_CURRENT_LIST_DIR}/sweep_fit_refine_test.cc ${CMAKE_CURRENT_LIST_DIR}/sweep_fit_midpoints_test.cc
               ${CMAKE_CURRENT_LIST_DIR}/sweep_fit_corrections_test.cc ${CMAKE_CURRENT_LIST_DIR}/sweep_fit_truth_test.cc
               ${CMAKE_CURRENT_LIST_DIR}/sweep_fit_shapes_test.cc)
target_link_libraries(sweep_fit_tests PRIVATE railtune_sweep_fit railtune_eval_fit GTest::gtest_main)
gtest_discover_tests(sweep_fit_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
