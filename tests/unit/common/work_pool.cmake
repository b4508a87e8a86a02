# common/work_pool.h, the tools' one pool of worker threads: in every test set, TSan's among them.
find_package(Threads REQUIRED)
add_executable(work_pool_tests ${CMAKE_CURRENT_LIST_DIR}/work_pool_test.cc)
target_link_libraries(work_pool_tests PRIVATE railtune_source_root Threads::Threads GTest::gtest_main)
gtest_discover_tests(work_pool_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30 PROPERTIES TIMEOUT 120)
