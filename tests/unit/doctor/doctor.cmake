# The doctor library (doctor/), called without the CLI: the ELF reader, the fit and ABI-binding rules, NCCL's
# symbol-version table (emulator/loader.h), the report, and checks that need no probe child. Suites start with
# Doctor.
if(DEFINED RAILTUNE_TESTS AND NOT RAILTUNE_TESTS STREQUAL "all")
  return()  # single-threaded, native-only code: not part of the TSan or cross sets
endif()
add_executable(doctor_tests ${CMAKE_CURRENT_LIST_DIR}/doctor_elf_test.cc ${CMAKE_CURRENT_LIST_DIR}/doctor_abi_test.cc
               ${CMAKE_CURRENT_LIST_DIR}/doctor_abi_newest_test.cc
               ${CMAKE_CURRENT_LIST_DIR}/doctor_checks_test.cc)
target_link_libraries(doctor_tests PRIVATE railtune_doctor GTest::gtest_main)
target_compile_definitions(doctor_tests PRIVATE RAILTUNE_DOCTOR_PLUGIN_DIR="${RAILTUNE_PLUGIN_DIR}"
                                                RAILTUNE_DOCTOR_DATA="${PROJECT_SOURCE_DIR}/tests/data")
add_dependencies(doctor_tests railtune_net_plugin)
gtest_discover_tests(doctor_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
