# The verbs transport (net_plugin/transports/ib): its port decisions, wire layouts and work-request ids;
# libibverbs loaded into the verbs table, against stand-in libraries built here (fake_ibverbs.c: with rdma-core's
# version nodes, without one required symbol, and without version nodes at all).
function(net_ib_fake_library name)
  cmake_parse_arguments(F "VERSIONED" "" "DEFINES" ${ARGN})
  add_library(${name} SHARED ${CMAKE_CURRENT_LIST_DIR}/fake_ibverbs.c)
  target_compile_definitions(${name} PRIVATE ${F_DEFINES})
  target_compile_options(${name} PRIVATE -w)  # a stand-in: its stubs take what they ignore
  if(F_VERSIONED)
    target_link_options(${name} PRIVATE -Wl,--version-script=${CMAKE_CURRENT_LIST_DIR}/fake_ibverbs.map)
    set_target_properties(${name} PROPERTIES LINK_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/fake_ibverbs.map)
  endif()
endfunction()
net_ib_fake_library(net_ib_fake_full VERSIONED)
net_ib_fake_library(net_ib_fake_partial VERSIONED DEFINES FAKE_WITHOUT_MODIFY_QP)
net_ib_fake_library(net_ib_fake_unversioned)

add_executable(net_ib_tests ${CMAKE_CURRENT_LIST_DIR}/net_ib_verbs_table_test.cc
               ${CMAKE_CURRENT_LIST_DIR}/net_ib_port_test.cc ${CMAKE_CURRENT_LIST_DIR}/net_ib_wire_test.cc
               ${CMAKE_CURRENT_LIST_DIR}/net_ib_wr_id_test.cc)
target_link_libraries(net_ib_tests PRIVATE railtune_net_ib GTest::gtest_main)
target_compile_definitions(net_ib_tests PRIVATE FAKE_IBVERBS_FULL="$<TARGET_FILE:net_ib_fake_full>"
                           FAKE_IBVERBS_PARTIAL="$<TARGET_FILE:net_ib_fake_partial>"
                           FAKE_IBVERBS_UNVERSIONED="$<TARGET_FILE:net_ib_fake_unversioned>")
add_dependencies(net_ib_tests net_ib_fake_full net_ib_fake_partial net_ib_fake_unversioned)
gtest_discover_tests(net_ib_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30 PROPERTIES LABELS verbs)

# Its own executable: it replaces operator new to count allocations on the verbs data path, on the simulator
# (emulator/verbs_sim), which every build has.
add_executable(net_ib_alloc_tests ${CMAKE_CURRENT_LIST_DIR}/net_ib_alloc_test.cc ${CMAKE_CURRENT_LIST_DIR}/sim_engine_pair.cc)
target_link_libraries(net_ib_alloc_tests PRIVATE railtune_net_ib railtune_source_root GTest::gtest_main)
target_compile_definitions(net_ib_alloc_tests PRIVATE VERBS_SIM_LIBRARY="$<TARGET_FILE:railtune_verbs_sim>")
add_dependencies(net_ib_alloc_tests railtune_verbs_sim)
gtest_discover_tests(net_ib_alloc_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30 PROPERTIES LABELS verbs)

# NCCL's variables as the transport takes them (common/nccl_ib_env.h): the QP options from the one reading, checked on
# the simulator's QPs with ibv_query_qp, and relaxed ordering on registrations. Its own executable: the simulator reads
# its folder once per process.
add_executable(net_ib_env_tests ${CMAKE_CURRENT_LIST_DIR}/net_ib_env_test.cc ${CMAKE_CURRENT_LIST_DIR}/sim_engine_pair.cc)
target_link_libraries(net_ib_env_tests PRIVATE railtune_net_ib railtune_source_root GTest::gtest_main)
target_compile_definitions(net_ib_env_tests PRIVATE VERBS_SIM_LIBRARY="$<TARGET_FILE:railtune_verbs_sim>")
add_dependencies(net_ib_env_tests railtune_verbs_sim)
gtest_discover_tests(net_ib_env_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30 PROPERTIES LABELS verbs)

# The connections' edges on the simulator: CQs sized for an error flush, teardown failures, a flush tested after
# closeRecv (net_ib_teardown_test.cc). Its own executable: the simulator reads its folder once per process.
add_executable(net_ib_edge_tests ${CMAKE_CURRENT_LIST_DIR}/net_ib_teardown_test.cc ${CMAKE_CURRENT_LIST_DIR}/sim_engine_pair.cc)
target_link_libraries(net_ib_edge_tests PRIVATE railtune_net_ib railtune_source_root GTest::gtest_main)
target_compile_definitions(net_ib_edge_tests PRIVATE VERBS_SIM_LIBRARY="$<TARGET_FILE:railtune_verbs_sim>")
add_dependencies(net_ib_edge_tests railtune_verbs_sim)
gtest_discover_tests(net_ib_edge_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30 PROPERTIES LABELS verbs)

# verbs_abi.h against rdma-core's <infiniband/verbs.h> (Debian's libibverbs-dev, which scripts/install-deps.sh
# installs for the tests; the plugin never includes it). Checked at every configure, not cached: CI removes the
# package and configures again (.ci/run, stage 6), and a stale answer would build against a missing header.
include(CheckIncludeFileCXX)
unset(RAILTUNE_HAVE_RDMA_CORE_VERBS CACHE)
check_include_file_cxx(infiniband/verbs.h RAILTUNE_HAVE_RDMA_CORE_VERBS)
if(RAILTUNE_HAVE_RDMA_CORE_VERBS)
  add_executable(net_ib_rdma_core_abi_tests ${CMAKE_CURRENT_LIST_DIR}/net_ib_rdma_core_abi_test.cc)
  target_link_libraries(net_ib_rdma_core_abi_tests PRIVATE railtune_source_root GTest::gtest_main)
  gtest_discover_tests(net_ib_rdma_core_abi_tests TEST_PREFIX unit. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30
                       PROPERTIES LABELS verbs)
else()
  set(_why "<infiniband/verbs.h> of rdma-core not found (Debian: libibverbs-dev)")
  message(STATUS "unit.NetIbRdmaCoreAbi skipped: ${_why}; verbs_abi.h is not checked against rdma-core")
  add_test(NAME unit.NetIbRdmaCoreAbi.SkippedWithoutRdmaCore
           COMMAND sh -c "echo 'skipped: ${_why}: verbs_abi.h is not checked against rdma-core'; exit 77")
  set_tests_properties(unit.NetIbRdmaCoreAbi.SkippedWithoutRdmaCore PROPERTIES SKIP_RETURN_CODE 77 LABELS verbs)
endif()
