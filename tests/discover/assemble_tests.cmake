# assembleHost on hand-built sources: every selection rule, rails and planes, fabric state, labels.
add_executable(discover_assemble_tests ${CMAKE_CURRENT_LIST_DIR}/assemble_test.cc)
target_link_libraries(discover_assemble_tests PRIVATE railtune_discover GTest::gtest_main)
gtest_discover_tests(discover_assemble_tests TEST_PREFIX discover. NO_PRETTY_VALUES)
