# The TCP setup both transports connect with (net_plugin/transports/tcp_setup): the handle and hello layouts,
# numeric addresses. Its listener and connector run in the socket and verbs transports' setup tests.
add_executable(net_tcp_setup_tests ${CMAKE_CURRENT_LIST_DIR}/net_tcp_setup_wire_test.cc)
target_link_libraries(net_tcp_setup_tests PRIVATE railtune_net_tcp_setup GTest::gtest_main)
gtest_discover_tests(net_tcp_setup_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
