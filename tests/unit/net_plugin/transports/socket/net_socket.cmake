# The socket transport (net_plugin/transports/socket): handshake, data integrity over several streams, NCCL's
# matching and size rules, request limits, faults. Everything runs over 127.0.0.1 in one process,
# each wait bounded by a deadline so that a hang fails the test instead of the run.
add_executable(net_socket_tests
  ${CMAKE_CURRENT_LIST_DIR}/net_socket_wire_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/net_socket_setup_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/net_socket_data_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/net_socket_fault_test.cc)
target_link_libraries(net_socket_tests PRIVATE railtune_net_socket GTest::gtest_main)
gtest_discover_tests(net_socket_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30
                     PROPERTIES TIMEOUT 120)

# Its own executable: it replaces operator new to count allocations on the data path.
add_executable(net_socket_alloc_tests ${CMAKE_CURRENT_LIST_DIR}/net_socket_alloc_test.cc)
target_link_libraries(net_socket_alloc_tests PRIVATE railtune_net_socket GTest::gtest_main)
gtest_discover_tests(net_socket_alloc_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)

# What the plugin adds on top of the transport, tested without the .so: the served GPU and its rail.
add_executable(net_engine_tests ${CMAKE_CURRENT_LIST_DIR}/net_served_gpu_test.cc)
target_link_libraries(net_engine_tests PRIVATE railtune_net_engine GTest::gtest_main)
gtest_discover_tests(net_engine_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
