# discover_probes_tests: the sysfs source over the fake trees in tests/data/discover/sysfs/ (and the
# live /sys once), the NVML source over the fake NVML library (fake_nvml/) and its JSON fixtures.

# libfake-nvml.so: NVML's C ABI for the entry points railtune reads, GPUs from FAKE_NVML_CONFIG.
# libfake-nvml-v1.so: the same without nvmlDeviceGetGpuFabricInfoV (a driver older than the v2 struct).
find_package(nlohmann_json 3 REQUIRED)
foreach(_fake fake_nvml fake_nvml_v1)
  add_library(${_fake} SHARED fake_nvml/fake_nvml.cc)
  target_link_libraries(${_fake} PRIVATE nlohmann_json::nlohmann_json)
  set_target_properties(${_fake} PROPERTIES CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
                                            LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/discover/lib
                                            LINK_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/fake_nvml/exports.map)
  target_link_options(${_fake} PRIVATE -Wl,--version-script=${CMAKE_CURRENT_SOURCE_DIR}/fake_nvml/exports.map)
  # The real NVML is C and carries no function-type data; clang's UBSan (-fsanitize=function) would
  # otherwise compare our own declarations with the fake's C++ ones, which are deliberately distinct.
  if(RAILTUNE_SANITIZE STREQUAL "address" AND CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    target_compile_options(${_fake} PRIVATE -fno-sanitize=function)
  endif()
endforeach()
set_target_properties(fake_nvml PROPERTIES OUTPUT_NAME fake-nvml)
set_target_properties(fake_nvml_v1 PROPERTIES OUTPUT_NAME fake-nvml-v1)
target_compile_definitions(fake_nvml_v1 PRIVATE FAKE_NVML_NO_FABRIC_V)

add_executable(discover_probes_tests sysfs_parse_test.cc sysfs_tree_test.cc nvml_read_test.cc)
target_link_libraries(discover_probes_tests PRIVATE railtune_discover_probes GTest::gtest_main)
add_dependencies(discover_probes_tests fake_nvml fake_nvml_v1)
target_compile_definitions(discover_probes_tests PRIVATE
                           RAILTUNE_SYSFS_FIXTURES="${PROJECT_SOURCE_DIR}/tests/data/discover/sysfs"
                           RAILTUNE_NVML_FIXTURES="${PROJECT_SOURCE_DIR}/tests/data/discover/nvml"
                           RAILTUNE_FAKE_NVML="$<TARGET_FILE:fake_nvml>"
                           RAILTUNE_FAKE_NVML_V1="$<TARGET_FILE:fake_nvml_v1>")
gtest_discover_tests(discover_probes_tests TEST_PREFIX discover. NO_PRETTY_VALUES)
