# The strict verbs simulator (README.md): a libibverbs.so.1 the verbs transport loads unchanged, in one process
# or across processes, and its own unit tests. Included from tests/support/CMakeLists.txt, whose directory is
# EXCLUDE_FROM_ALL: the library, its helper programs and the test binary are put back into `all` by their
# EXCLUDE_FROM_ALL property below wherever the tests are defined, so `make test` finds them built.
set(_vsim ${CMAKE_CURRENT_LIST_DIR})

# The description and the fake sysfs tree: plain code the tool and the tests link directly.
add_library(railtune_verbs_sim_fabric STATIC ${_vsim}/sim_fabric.cc ${_vsim}/sim_sysfs.cc)
target_link_libraries(railtune_verbs_sim_fabric PUBLIC railtune_source_root PRIVATE nlohmann_json::nlohmann_json)

# The simulator itself, position-independent and hidden, for the shared library (and in-process use).
add_library(railtune_verbs_sim_core STATIC ${_vsim}/sim_objects.cc ${_vsim}/sim_qp.cc ${_vsim}/sim_agent.cc
                                           ${_vsim}/sim_control.cc)
set_target_properties(railtune_verbs_sim_core PROPERTIES POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden
                                                         VISIBILITY_INLINES_HIDDEN ON)
target_link_libraries(railtune_verbs_sim_core PUBLIC railtune_verbs_sim_fabric Threads::Threads)
# tests/ compiles its code at -O1 for build speed; the simulator is what the transport's benchmarks run on,
# so it keeps -O2 (the last -O wins).
target_compile_options(railtune_verbs_sim_core PRIVATE -O2)
set_target_properties(railtune_verbs_sim_fabric PROPERTIES POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden
                                                           VISIBILITY_INLINES_HIDDEN ON)

# libibverbs.so.1 (+ the libibverbs.so name link) alone in build/verbs_sim/, so that directory can go first on
# LD_LIBRARY_PATH. rdma-core's version nodes (libibverbs.map); -z nodelete because the agent thread must
# outlive a dlclose; -Bsymbolic so the library's own calls never bind to another libibverbs in the process.
add_library(railtune_verbs_sim SHARED ${_vsim}/sim_exports.cc)
target_link_libraries(railtune_verbs_sim PRIVATE railtune_verbs_sim_core)
set_target_properties(railtune_verbs_sim PROPERTIES OUTPUT_NAME ibverbs SOVERSION 1 CXX_VISIBILITY_PRESET hidden
                      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/verbs_sim LINK_DEPENDS ${_vsim}/libibverbs.map)
target_link_options(railtune_verbs_sim PRIVATE -Wl,--version-script=${_vsim}/libibverbs.map -Wl,-z,nodelete
                    -Wl,-Bsymbolic)

add_executable(railtune_verbs_sim_tool ${_vsim}/sim_tool.cc)
target_link_libraries(railtune_verbs_sim_tool PRIVATE railtune_verbs_sim_fabric)

# The tests: the shared library through dlopen (as the transport loads it), and a peer program for the
# cross-process cases. Only where unit tests are built (the `all` and TSan sets, not the aarch64 one).
if("unit" IN_LIST _test_dirs)
  add_executable(verbs_sim_peer ${_vsim}/verbs_sim_peer.cc)
  target_link_libraries(verbs_sim_peer PRIVATE railtune_net_ib railtune_source_root)
  add_executable(verbs_sim_tests ${_vsim}/verbs_sim_test_basic.cc ${_vsim}/verbs_sim_test_data.cc
                                 ${_vsim}/verbs_sim_test_faults.cc ${_vsim}/verbs_sim_test_process.cc)
  target_link_libraries(verbs_sim_tests PRIVATE railtune_verbs_sim_fabric railtune_net_ib railtune_source_root
                                                GTest::gtest_main Threads::Threads)
  target_compile_definitions(verbs_sim_tests PRIVATE VERBS_SIM_LIBRARY="$<TARGET_FILE:railtune_verbs_sim>"
                             VERBS_SIM_PEER="$<TARGET_FILE:verbs_sim_peer>"
                             VERBS_SIM_TOOL="$<TARGET_FILE:railtune_verbs_sim_tool>")
  add_dependencies(verbs_sim_tests railtune_verbs_sim verbs_sim_peer railtune_verbs_sim_tool)
  set_target_properties(verbs_sim_tests verbs_sim_peer railtune_verbs_sim railtune_verbs_sim_tool
                        PROPERTIES EXCLUDE_FROM_ALL OFF)
  gtest_discover_tests(verbs_sim_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
endif()
