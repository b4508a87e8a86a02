# NCCL topology XML and rail map (topo_gen/nccl_xml*, fabric/rail_map*): goldens under
# tests/data/golden/{nccl_xml,rail_map}/ and docs/formats/rail-map.example.json, compared byte for byte;
# RAILTUNE_UPDATE_GOLDEN=1 rewrites them (ctest -R '^topo_gen\.' with it set, then review the diff).
add_executable(topo_xml_tests
  ${CMAKE_CURRENT_SOURCE_DIR}/nccl_xml_test.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/nccl_xml_read_test.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/nccl_xml_profiles_test.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/rail_map_test.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/cluster_check_test.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/cluster_outputs_test.cc)
target_link_libraries(topo_xml_tests PRIVATE railtune_topo_xml railtune_topo_outputs GTest::gtest_main)
target_compile_definitions(topo_xml_tests PRIVATE RAILTUNE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
                                                   RAILTUNE_SHARED_TOPO="${RAILTUNE_SHARED_DATA_DIR}/topo")
gtest_discover_tests(topo_xml_tests TEST_PREFIX topo_gen. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)

# Every built-in profile's rail map names its GPU as NCCL does, the name the emulator's GPU-to-profile table holds
# (its own executable: it links the emulator's model for that table).
add_executable(topo_rail_map_gpu_tests ${CMAKE_CURRENT_SOURCE_DIR}/rail_map_gpu_test.cc)
target_link_libraries(topo_rail_map_gpu_tests PRIVATE railtune_topo_xml railtune_fabric_yaml railtune_nccl_model
                                                      GTest::gtest_main)
gtest_discover_tests(topo_rail_map_gpu_tests TEST_PREFIX topo_gen. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)

# The rail map's golden files fit its JSON Schema (the same check the docs promise for every format).
foreach(_golden tests/data/golden/rail_map/gb300-2racks.json tests/data/golden/rail_map/profile-gb300-nvl72.json
                tests/data/golden/rail_map/dgx-h100-roce.json docs/formats/rail-map.example.json)
  get_filename_component(_name ${_golden} NAME_WE)
  add_test(NAME topo_gen.rail_map_schema.${_name}
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/rail_map_schema_check.py
                   ${PROJECT_SOURCE_DIR}/docs/formats/rail-map.schema.json ${PROJECT_SOURCE_DIR}/${_golden})
endforeach()

# The subcommands as a user runs them (railtune topo nccl-xml | rail-map), on the embedded default cluster.
set(_railtune ${RAILTUNE_CLI})
set(_expect ${PROJECT_SOURCE_DIR}/tests/cli/expect.sh)
add_test(NAME topo_gen.cli_nccl_xml_first_host
         COMMAND ${_expect} ok "^<system version=\"1\" name=\"rack00-tray00\">$" "<net name=\"mlx5_3\" dev=\"3\""
                 -- ${_railtune} topo nccl-xml)
add_test(NAME topo_gen.cli_nccl_xml_named_host
         COMMAND ${_expect} ok "name=\"rack01-tray17\"" -- ${_railtune} topo nccl-xml --host rack01-tray17)
add_test(NAME topo_gen.cli_nccl_xml_unknown_host
         COMMAND ${_expect} fail "no host named 'nope'" -- ${_railtune} topo nccl-xml --host nope)
add_test(NAME topo_gen.cli_rail_map_unwritable_out
         COMMAND ${_expect} fail "cannot write /dev/null/map.json" -- ${_railtune} topo rail-map --out /dev/null/map.json)
# The rail map the CLI writes fits its schema.
add_test(NAME topo_gen.cli_rail_map_schema
         COMMAND sh -c "\"$1\" topo rail-map --out \"$2\" && /usr/bin/python3 \"$3\" \"$4\" \"$2\"" rail_map
                 ${_railtune} ${CMAKE_CURRENT_BINARY_DIR}/cli-rail-map.json
                 ${CMAKE_CURRENT_SOURCE_DIR}/rail_map_schema_check.py ${PROJECT_SOURCE_DIR}/docs/formats/rail-map.schema.json)
# Two-plane NICs without the ASIC's guid: NCCL would take the planes for separate NICs (docs/fabric.md).
add_test(NAME topo_gen.cli_check_two_planes_without_guid
         COMMAND ${_expect} fail
                 "two-planes.yaml:[0-9]+:[0-9]+: error: 32 plane devices on 4 hosts \\(the first: host rack00-tray00: NIC mlx5_0 \\(rail 0, plane 0\\)\\) have no guid"
                 "railtune topo check: 1 error"
                 -- ${_railtune} topo check --fabric ${PROJECT_SOURCE_DIR}/tests/data/synth/two-planes.yaml)
