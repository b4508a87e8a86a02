# `railtune topo discover` as a user runs it, on the fixtures (hwloc XML, fake sysfs trees, the fake
# NVML library): golden outputs, the checks it reports, a host without GPUs, and the per-host
# discover -> merge -> check workflow. Run in tests/data/discover so outputs name relative paths.
set(_rt ${RAILTUNE_CLI})
set(_nvml $<TARGET_FILE:fake_nvml>)
set(_here ${CMAKE_CURRENT_LIST_DIR})
set(_data ${PROJECT_SOURCE_DIR}/tests/data/discover)
set(_golden ${PROJECT_SOURCE_DIR}/tests/data/golden/discover)
set(_expect ${PROJECT_SOURCE_DIR}/tests/cli/expect.sh)

function(railtune_discover_test name nvmlConfig)
  add_test(NAME discover.cli_${name} COMMAND ${ARGN})
  set_tests_properties(discover.cli_${name} PROPERTIES WORKING_DIRECTORY ${_data}
                       ENVIRONMENT "FAKE_NVML_CONFIG=${_data}/nvml/${nvmlConfig}")
endfunction()

set(_gb300 topo discover --host rack00-tray00 --hwloc-xml hwloc/gb300-tray-synthetic.xml --sysfs-root sysfs/gb300-1plane
           --nvml-library ${_nvml})
railtune_discover_test(gb300_golden gb300-tray.json ${_here}/golden_output.sh ${_golden}/gb300-tray.yaml -- ${_rt} ${_gb300})
railtune_discover_test(gb300_two_planes_golden gb300-tray.json ${_here}/golden_output.sh ${_golden}/gb300-tray-2plane.yaml
                       -- ${_rt} topo discover --host rack00-tray00 --hwloc-xml hwloc/gb300-tray-synthetic-2plane.xml
                       --sysfs-root sysfs/gb300-2plane --nvml-library ${_nvml})
railtune_discover_test(roce_h100_golden dgx-h100.json ${_here}/golden_output.sh ${_golden}/roce-h100.yaml
                       -- ${_rt} topo discover --host dgx01 --no-hwloc --sysfs-root sysfs/roce-h100 --nvml-library ${_nvml})
railtune_discover_test(gb200_hwloc3_only gb300-tray.json ${_expect} ok "0010:03:00.0.*rail: 2.*nearestGpu: 2"
                       "NICs from hwloc only" "no NVML: sm, NVLink and C2C counts are profile gb200-nvl72's"
                       -- ${_rt} topo discover --host gb200-t0 --hwloc-xml hwloc/gb200-tray-synthetic.xml --sysfs-root cli
                       --no-nvml --profile gb200-nvl72)
# Two devices at one bus id under two host bridges (a SATA controller and a ConnectX-4, as in a real hwloc 2
# export): the one that is neither GPU nor NIC is a warning, and discovery goes on.
railtune_discover_test(shared_bus_id_warning gb300-tray.json ${_expect} ok
                       "warning: hwloc: .*PCIDev 0000:04:00.0 \\(class 0106, neither GPU nor NIC\\)" "index: 0, busId: \"0000:05:00.0\""
                       -- ${_rt} topo discover --host odd-bus --hwloc-xml hwloc/shared-bus-id-two-host-bridges.xml
                       --sysfs-root cli --no-nvml)
# A real hwloc export of others, read in place from the shared data folder; without it, a skip that says so.
set(_dgx2 ${RAILTUNE_SHARED_DATA_DIR}/hwloc/hwloc3-nvidia-dgx2-nvml-nvswitch.xml)
if(EXISTS ${_dgx2})
  railtune_discover_test(dgx2_real_hwloc gb300-tray.json ${_expect} ok "index: 15, busId: \"0000:e7:00.0\""
                         "no NVML: sm and NVLink counts unknown" "no RDMA NIC found"
                         -- ${_rt} topo discover --host dgx2 --hwloc-xml ${_dgx2} --sysfs-root cli --no-nvml)
else()
  add_test(NAME discover.cli_dgx2_real_hwloc COMMAND sh -c "echo 'skipped: ${_dgx2} is absent'; exit 77")
  set_tests_properties(discover.cli_dgx2_real_hwloc PROPERTIES SKIP_RETURN_CODE 77)
endif()
railtune_discover_test(degraded gb300-tray-degraded.json ${_expect} fail "GPU 1 has 16 NVLinks, profile gb300-nvl72 has 18"
                       "GPU 3 \\(0019:01:00.0\\): NVLink fabric registration in progress"
                       "GPU 1 \\(0009:01:00.0\\): NVLink fabric health: degraded NVLink bandwidth" -- ${_rt} ${_gb300})
railtune_discover_test(clique_label_stale gb300-tray.json ${_expect} fail
                       "error: nvidia.com/gpu.clique is 3f9c2a71-4b8e-4d05-a6c3-9e1d7b2f5c40.7 but NVML reports .*\\.32766"
                       -- ${_rt} ${_gb300} --node-labels cli/node-gb300-stale-clique.json)
railtune_discover_test(clique_label_ok gb300-tray.json ${_expect} ok "note: nvidia.com/gpu.clique matches NVML"
                       -- ${_rt} ${_gb300} --node-labels cli/node-labels-ok.json)
railtune_discover_test(clique_label_absent gb300-tray.json ${_expect} ok "warning: node has no nvidia.com/gpu.clique label"
                       -- ${_rt} ${_gb300} --node-labels cli/node-labels-no-clique.json)
railtune_discover_test(unknown_hca gb300-tray.json ${_expect} fail "error: --hca mlx5_9: no such RDMA device"
                       -- ${_rt} ${_gb300} --hca mlx5_0,mlx5_9)
railtune_discover_test(no_gpu gb300-tray.json ${_expect} ok "no NVIDIA GPU found on login01 .*nothing to describe"
                       -- ${_rt} topo discover --host login01 --hwloc-xml cli/no-gpu-hwloc.xml --sysfs-root cli
                       --nvml-library ${_data}/cli/no-such-libnvidia-ml.so)
railtune_discover_test(hwloc1_rejected gb300-tray.json ${_expect} fail "hwloc1-minimal.xml.*lstopo --of xml"
                       -- ${_rt} topo discover --host h --hwloc-xml hwloc/hwloc1-minimal.xml --sysfs-root cli --no-nvml)
railtune_discover_test(matches_profile gb300-tray.json ${_here}/discovered_matches_profile.sh ${_rt}
                       ${_golden}/gb300-tray.yaml rack00-tray00)
railtune_discover_test(merge gb300-tray.json ${_here}/discover_merge.sh ${_rt} ${_nvml}
                       ${CMAKE_CURRENT_BINARY_DIR}/merge-work)
# What discovery writes is valid against the fabric schema.
add_test(NAME discover.schema_accepts_goldens
         COMMAND ${PROJECT_SOURCE_DIR}/tests/support/validate_schema.py ${PROJECT_SOURCE_DIR}/docs/formats/fabric.schema.json
                 ${_golden}/gb300-tray.yaml ${_golden}/gb300-tray-2plane.yaml ${_golden}/roce-h100.yaml)
# This machine as it is: on a host without GPUs it says so and exits 0; on a GPU host it describes it.
add_test(NAME discover.cli_live COMMAND ${_expect} ok "no NVIDIA GPU found|^cluster: " -- ${_rt} topo discover)
# A damaged NVML (a truncated copy: ld.so dies with SIGBUS mapping it) is read in a child under a deadline,
# as doctor does, and a FIFO (dlopen would block) is refused before any load: the host is still described.
set(_nvml_damaged ${CMAKE_CURRENT_BINARY_DIR}/nvml-damaged)
add_test(NAME discover.cli_nvml_damaged_fixtures
         COMMAND sh -c "rm -rf '${_nvml_damaged}' && mkdir -p '${_nvml_damaged}' && head -c 3000 '${_nvml}' > '${_nvml_damaged}/truncated.so' && mkfifo '${_nvml_damaged}/nvml.fifo'")
set_tests_properties(discover.cli_nvml_damaged_fixtures PROPERTIES FIXTURES_SETUP discover_nvml_damaged)
set(_gb300_no_nvml topo discover --host rack00-tray00 --hwloc-xml hwloc/gb300-tray-synthetic.xml --sysfs-root sysfs/gb300-1plane)
railtune_discover_test(nvml_truncated gb300-tray.json ${_expect} ok "note: NVML .*truncated\\.so" "index: 3, busId:"
                       -- env ASAN_OPTIONS=handle_segv=0:handle_sigbus=0:handle_abort=0
                       ${_rt} ${_gb300_no_nvml} --nvml-library ${_nvml_damaged}/truncated.so)
railtune_discover_test(nvml_fifo gb300-tray.json ${_expect} ok
                       "note: NVML .*nvml\\.fifo not read: it is a FIFO, not a regular file"
                       "index: 3, busId:" -- ${_rt} ${_gb300_no_nvml} --nvml-library ${_nvml_damaged}/nvml.fifo)
set_tests_properties(discover.cli_nvml_truncated discover.cli_nvml_fifo PROPERTIES FIXTURES_REQUIRED discover_nvml_damaged
                     TIMEOUT 90)
