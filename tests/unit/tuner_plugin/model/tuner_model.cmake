# The tuner's cost model (tuner_plugin/model): its corrections re-derived from the published data in
# tests/data/tuner/model (checked against the emulated NCCL, which only the tests link), the advice's
# conditions, and zero heap allocations per call. Own executable: it replaces operator new.
add_executable(tuner_model_tests
  ${CMAKE_CURRENT_LIST_DIR}/tuner_model_corrections_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/tuner_model_advise_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/tuner_model_inputs_test.cc)
target_link_libraries(tuner_model_tests PRIVATE railtune_tuner_model railtune_tuner_types railtune_nccl_model GTest::gtest_main)
target_compile_definitions(tuner_model_tests PRIVATE
  RAILTUNE_TUNER_MODEL_DATA="${PROJECT_SOURCE_DIR}/tests/data/tuner/model"
  RAILTUNE_SHARED_DATA="${RAILTUNE_SHARED_DATA_DIR}")
gtest_discover_tests(tuner_model_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
