# NCCL's own model, emulated (emulator/nccl_model): constants, hand-computed tables, algorithm conditions,
# published figures, the graph data files and their schema, NCCL's TUNING log reader, the decomposition
# for the fitter (terms.h).
add_executable(nccl_model_tests
  ${CMAKE_CURRENT_LIST_DIR}/nccl_model_constants_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/nccl_model_table_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/nccl_model_conditions_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/nccl_model_figures_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/nccl_model_graph_data_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/nccl_model_tuning_log_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/nccl_model_emulated_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/nccl_model_terms_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/nccl_model_terms_formula_test.cc)
target_compile_definitions(nccl_model_tests PRIVATE RAILTUNE_NCCL_TEST_DATA="${PROJECT_SOURCE_DIR}/tests/data/tuner/nccl")
target_link_libraries(nccl_model_tests PRIVATE railtune_nccl_model GTest::gtest_main)
gtest_discover_tests(nccl_model_tests TEST_PREFIX "emulator." NO_PRETTY_VALUES)

# What the tuner never sees: symmetric kernels, CE AllGather, the zero-SM CTA policy (bypass.h).
add_executable(nccl_bypass_tests ${CMAKE_CURRENT_LIST_DIR}/nccl_model_bypass_test.cc)
target_link_libraries(nccl_bypass_tests PRIVATE railtune_nccl_model GTest::gtest_main)
gtest_discover_tests(nccl_bypass_tests TEST_PREFIX "emulator." NO_PRETTY_VALUES)

# Every graph data file follows docs/formats/nccl-graph-data.schema.json, and every number names a source.
add_test(NAME emulator.nccl_graph_data_schema
         COMMAND ${PROJECT_SOURCE_DIR}/tests/support/validate_schema.py
                 ${PROJECT_SOURCE_DIR}/docs/formats/nccl-graph-data.schema.json
                 ${PROJECT_SOURCE_DIR}/emulator/data/graphs/gb300-nvl72.json
                 ${PROJECT_SOURCE_DIR}/emulator/data/graphs/gb200-nvl72.json
                 ${PROJECT_SOURCE_DIR}/emulator/data/graphs/dgx-h100.json
                 ${PROJECT_SOURCE_DIR}/emulator/data/graphs/dgx-b200.json)
