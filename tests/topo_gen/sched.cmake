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
                                       ${CMAKE_CURRENT_LIST_DIR}/qp_shape_agreement_test.cc
                                       ${CMAKE_CURRENT_LIST_DIR}/measured_net_test.cc)
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

# Measured network settings (railtune.net-env/1, docs/qp-policy.md): `topo env --measured` exports the entry for the
# built-in cluster (its 2-node shape, the one with most nodes) with the source word "measured" in --why, the user's
# NCCL_IB_* over it; a file for another fabric changes nothing and says so once; `topo rail-map --measured` writes
# the entry into the map, which fits the schema.
set(_net_env ${PROJECT_SOURCE_DIR}/tests/data/net_env)
add_test(NAME topo_gen.env_measured_why
         COMMAND ${_expect} ok "^# NCCL_IB_QPS_PER_CONNECTION=8: measured: gb300-ib-800.json, allreduce on 144 ranks on 2 nodes"
                 "^# NCCL_CROSS_NIC=1: measured: gb300-ib-800.json" "^export NCCL_IB_QPS_PER_CONNECTION=8$"
                 "^export NCCL_IB_SPLIT_DATA_ON_QPS=1$" "^export NCCL_CROSS_NIC=1$" "^export NCCL_NCHANNELS_PER_NET_PEER=4$"
                 "note: gb300-ib-800.json: allreduce on 8 ranks on 2 nodes measured NCCL_IB_QPS_PER_CONNECTION=2"
                 -- ${RAILTUNE_CLI} topo env --measured ${_net_env}/gb300-ib-800.json --why)
add_test(NAME topo_gen.env_measured_user_wins
         COMMAND ${_expect} ok "^# NCCL_IB_QPS_PER_CONNECTION=3: set in the environment" "^export NCCL_IB_QPS_PER_CONNECTION=3$"
                 -- env NCCL_IB_QPS_PER_CONNECTION=3 ${RAILTUNE_CLI} topo env --measured ${_net_env}/gb300-ib-800.json --why)
add_test(NAME topo_gen.env_measured_other_fabric
         COMMAND sh -c "out=$(\"$1\" topo env --measured \"$2\" --why 2>&1) || exit 1; printf '%s\\n' \"$out\"
                        [ \"$(printf '%s\\n' \"$out\" | grep -c 'note: gb300-roce-800.json: no entry is for this cluster')\" = 1 ] &&
                        ! printf '%s\\n' \"$out\" | grep -q measured: && printf '%s\\n' \"$out\" | grep -q '^export NCCL_CROSS_NIC=0$'"
                 env_measured ${RAILTUNE_CLI} ${_net_env}/gb300-roce-800.json)
add_test(NAME topo_gen.exec_measured
         COMMAND ${_expect} ok "^NCCL_IB_QPS_PER_CONNECTION=8$" "^NCCL_CROSS_NIC=1$"
                 -- ${RAILTUNE_CLI} exec --host rack00-tray00 --measured ${_net_env}/gb300-ib-800.json -- env)
add_test(NAME topo_gen.env_measured_malformed
         COMMAND ${_expect} 2 "^railtune topo env: .*net-env.schema.json:[0-9]+:[0-9]+: unknown field"
                 "net-env.schema.json:2:3: unknown field '\\$schema'" "net-env.schema.json:1:1: missing field 'schema'"
                 -- ${RAILTUNE_CLI} topo env --measured ${PROJECT_SOURCE_DIR}/docs/formats/net-env.schema.json)
add_test(NAME topo_gen.rail_map_measured
         COMMAND sh -c "\"$1\" topo rail-map --measured \"$2\" --out \"$3\" && grep -q '\"NCCL_IB_QPS_PER_CONNECTION\": \"8\"' \"$3\" &&
                        grep -q '\"source\": \"measured: gb300-ib-800.json, allreduce on 144 ranks' \"$3\" &&
                        /usr/bin/python3 \"$4\" \"$5\" \"$3\""
                 rail_map_measured ${RAILTUNE_CLI} ${_net_env}/gb300-ib-800.json ${CMAKE_CURRENT_BINARY_DIR}/measured-rail-map.json
                 ${CMAKE_CURRENT_SOURCE_DIR}/rail_map_schema_check.py ${PROJECT_SOURCE_DIR}/docs/formats/rail-map.schema.json)
