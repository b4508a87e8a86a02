# NCCL's interface lists (formats/nccl_if_list.h), NCCL_IB_HCA and NCCL_SOCKET_IFNAME syntax, case by case
# against NCCL's parseStringList/matchIfList. Pure, single-threaded code: part of the full test set only.
add_executable(formats_nccl_if_list_tests ${CMAKE_CURRENT_LIST_DIR}/nccl_if_list_test.cc)
target_link_libraries(formats_nccl_if_list_tests PRIVATE railtune_formats GTest::gtest_main)
gtest_discover_tests(formats_nccl_if_list_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
