# The net plugin's device library (net_plugin/devices): sysfs, the step-aside rule,
# the device list and NIC fusion. Fixtures: tests/data/net and the fake sysfs trees of
# tests/data/discover/sysfs (read-only).
add_executable(net_devices_tests
  ${CMAKE_CURRENT_LIST_DIR}/net_devices_sysfs_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/net_devices_list_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/net_devices_vdevice_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/net_devices_table_test.cc)
target_link_libraries(net_devices_tests PRIVATE railtune_net_devices GTest::gtest_main)
target_compile_definitions(net_devices_tests PRIVATE
  RAILTUNE_DISCOVER_SYSFS="${PROJECT_SOURCE_DIR}/tests/data/discover/sysfs"
  RAILTUNE_NET_DATA="${PROJECT_SOURCE_DIR}/tests/data/net")
gtest_discover_tests(net_devices_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
