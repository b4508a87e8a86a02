# The fitted-model file format (formats/tuner_model): the documented example is the writer's output of the sample
# model, the reader's every refusal with its position, files read only when regular and small; the schema accepts
# the example.
add_executable(formats_tuner_model_tests ${CMAKE_CURRENT_LIST_DIR}/tuner_model_test.cc
                                         ${CMAKE_CURRENT_LIST_DIR}/tuner_model_errors_test.cc
                                         ${CMAKE_CURRENT_LIST_DIR}/tuner_model_shapes_test.cc)
target_link_libraries(formats_tuner_model_tests PRIVATE railtune_formats_tuner_model GTest::gtest_main)
target_compile_definitions(formats_tuner_model_tests PRIVATE
  RAILTUNE_TUNER_MODEL_EXAMPLE="${PROJECT_SOURCE_DIR}/docs/formats/tuner-model.example.json")
gtest_discover_tests(formats_tuner_model_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)

add_test(NAME unit.tuner_model_schema_accepts_example
         COMMAND ${PROJECT_SOURCE_DIR}/tests/support/validate_schema.py
                 ${PROJECT_SOURCE_DIR}/docs/formats/tuner-model.schema.json
                 ${PROJECT_SOURCE_DIR}/docs/formats/tuner-model.example.json)
