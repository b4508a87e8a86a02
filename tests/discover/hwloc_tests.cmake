# The hwloc source (fabric/discover/hwloc_source.h): the XML reader on the fixtures in
# tests/data/discover/hwloc/ (synthetic GB200/GB300 trays, hwloc 1.x and malformed files) and a real
# hwloc 3.0 export read in place from the shared data folder, the live topology through this machine's libhwloc, and the library checks with a
# stand-in library that reports hwloc 1.x.
add_library(fake_hwloc_v1 MODULE ${CMAKE_CURRENT_LIST_DIR}/hwloc_fake_v1_lib.cc)
set_target_properties(fake_hwloc_v1 PROPERTIES PREFIX "" OUTPUT_NAME "libfake-hwloc-v1")

add_executable(discover_hwloc_tests
  ${CMAKE_CURRENT_LIST_DIR}/hwloc_attrs_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/hwloc_xml_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/hwloc_errors_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/hwloc_live_test.cc)
target_link_libraries(discover_hwloc_tests PRIVATE railtune_discover_hwloc GTest::gtest_main)
target_compile_definitions(discover_hwloc_tests PRIVATE
  RAILTUNE_HWLOC_FIXTURES="${PROJECT_SOURCE_DIR}/tests/data/discover/hwloc"
  RAILTUNE_SHARED_HWLOC="${RAILTUNE_SHARED_DATA_DIR}/hwloc"
  RAILTUNE_FAKE_HWLOC_V1="$<TARGET_FILE:fake_hwloc_v1>")
add_dependencies(discover_hwloc_tests fake_hwloc_v1)
gtest_discover_tests(discover_hwloc_tests TEST_PREFIX discover. NO_PRETTY_VALUES)
