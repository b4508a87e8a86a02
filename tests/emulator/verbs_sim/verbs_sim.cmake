# The verbs simulator's own tests (emulator/verbs_sim/README.md): the shared library through dlopen (as the
# transport loads it), and a peer program for the cross-process cases. Only where unit tests are built (the
# `all` and TSan sets, not the aarch64 one). The names keep the `unit.` prefix they had beside the unit tests.
find_package(nlohmann_json 3 REQUIRED)
set(_vsim_tests ${CMAKE_CURRENT_LIST_DIR})
add_executable(verbs_sim_peer ${_vsim_tests}/verbs_sim_peer.cc)
target_link_libraries(verbs_sim_peer PRIVATE railtune_net_ib railtune_source_root)
add_executable(verbs_sim_tests ${_vsim_tests}/verbs_sim_test_basic.cc ${_vsim_tests}/verbs_sim_test_data.cc
                               ${_vsim_tests}/verbs_sim_test_faults.cc ${_vsim_tests}/verbs_sim_test_process.cc
                               ${_vsim_tests}/verbs_sim_test_clock.cc)
target_link_libraries(verbs_sim_tests PRIVATE railtune_verbs_sim_fabric railtune_net_ib railtune_source_root
                                              nlohmann_json::nlohmann_json GTest::gtest_main Threads::Threads)
target_compile_definitions(verbs_sim_tests PRIVATE VERBS_SIM_LIBRARY="$<TARGET_FILE:railtune_verbs_sim>"
                           VERBS_SIM_PEER="$<TARGET_FILE:verbs_sim_peer>"
                           VERBS_SIM_TOOL="$<TARGET_FILE:railtune_verbs_sim_tool>")
add_dependencies(verbs_sim_tests railtune_verbs_sim verbs_sim_peer railtune_verbs_sim_tool)
gtest_discover_tests(verbs_sim_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30 PROPERTIES LABELS verbs)
