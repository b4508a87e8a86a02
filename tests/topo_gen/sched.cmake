# Tests of railtune_topo_sched: Kubernetes labels, Volcano HyperNodes, Kueue, Slurm, launcher env.
# Golden files: tests/data/golden/sched/ (RAILTUNE_UPDATE_GOLDEN=1 rewrites them; see sched_golden_test.cc).
add_executable(topo_sched_tests
  ${CMAKE_CURRENT_LIST_DIR}/sched_labels_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/sched_hypernodes_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/sched_kueue_slurm_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/sched_launcher_env_test.cc)
target_link_libraries(topo_sched_tests PRIVATE railtune_topo_sched railtune_yaml_cpp GTest::gtest_main)
gtest_discover_tests(topo_sched_tests TEST_PREFIX topo_gen. NO_PRETTY_VALUES)

# The goldens come from the built-in default cluster, so this one needs the fabric sources.
# qp_shape_agreement_test.cc: `topo env`'s QP policy shape against the rail map's (so it needs the map writer).
add_executable(topo_sched_golden_tests ${CMAKE_CURRENT_LIST_DIR}/sched_golden_test.cc
                                       ${CMAKE_CURRENT_LIST_DIR}/qp_shape_agreement_test.cc)
target_link_libraries(topo_sched_golden_tests PRIVATE railtune_topo_sched railtune_topo_xml railtune_fabric_yaml
                                                      GTest::gtest_main)
target_compile_definitions(topo_sched_golden_tests PRIVATE RAILTUNE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
gtest_discover_tests(topo_sched_golden_tests TEST_PREFIX topo_gen. NO_PRETTY_VALUES)

# The CLI as a user runs it: `railtune topo labels|hypernodes|kueue|slurm|env` print the goldens, exec.
add_test(NAME topo_gen.sched_cli
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/sched_cli.sh ${RAILTUNE_CLI}
                 ${PROJECT_SOURCE_DIR}/tests/data/golden/sched ${CMAKE_CURRENT_BINARY_DIR}/sched_cli)

# A --topo-file that does not exist here: a warning naming it (NCCL would detect the topology itself and say so
# only at NCCL_DEBUG=INFO); the variable is still set, and exec still runs the command.
set(_expect ${PROJECT_SOURCE_DIR}/tests/cli/expect.sh)
add_test(NAME topo_gen.env_missing_topo_file
         COMMAND ${_expect} ok
                 "^railtune topo env: warning: NCCL_TOPO_FILE=/nonexistent/railtune/rack00-tray00.xml: no such file here"
                 "^export NCCL_TOPO_FILE=/nonexistent/railtune/rack00-tray00.xml$" --
                 ${RAILTUNE_CLI} topo env --topo-file /nonexistent/railtune/{host}.xml)
add_test(NAME topo_gen.exec_missing_topo_file
         COMMAND ${_expect} ok "^railtune exec: warning: NCCL_TOPO_FILE=/nonexistent/railtune/topo.xml: no such file here"
                 "^NCCL_TOPO_FILE=/nonexistent/railtune/topo.xml$" --
                 ${RAILTUNE_CLI} exec --host rack00-tray00 --topo-file /nonexistent/railtune/topo.xml -- env)
add_test(NAME topo_gen.env_topo_file_present_no_warning
         COMMAND sh -c "\"$0\" topo env --topo-file \"$1\" 2>&1 >/dev/null | grep warning && exit 1 || exit 0"
                 ${RAILTUNE_CLI} ${PROJECT_SOURCE_DIR}/tests/data/golden/nccl_xml/profile-gb300-nvl72-first-host.xml)
