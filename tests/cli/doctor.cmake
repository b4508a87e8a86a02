# `railtune doctor` as a user runs it: this machine as it is, a fake libnccl.so.2 (tests/plugins/
# fake_nccl.c) of 2.28.9 and 2.30.7 and ones that crash or hang, foreign-architecture and truncated
# plugins, topology files that are a FIFO, a directory, missing or malformed, the rail map against the
# discovery tests' fake sysfs trees, NCCL_* variables, and the fake NVML.
set(_doctor_fx ${CMAKE_CURRENT_BINARY_DIR}/doctor-fixtures)
set(_fake_nccl ${RAILTUNE_TEST_PLUGIN_DIR}/fake-nccl)
set(_rail_map ${PROJECT_SOURCE_DIR}/tests/data/net/gb300-tray.rail-map.json)
set(_sysfs ${PROJECT_SOURCE_DIR}/tests/data/discover/sysfs)
set(_with_map --rail-map ${_rail_map} --host gb300-r00-t00 --no-nccl --no-nvml)

add_test(NAME cli.doctor_fixtures COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/doctor_fixtures.py ${_doctor_fx} ${RAILTUNE_PLUGIN_DIR})
set_tests_properties(cli.doctor_fixtures PROPERTIES FIXTURES_SETUP doctor_fixtures)

# railtune_doctor_test(<name> <ok|fail|status> <regex>... -- <doctor args>... [ENV <VAR=value>...])
function(railtune_doctor_test name)
  cmake_parse_arguments(D "" "" "ENV" ${ARGN})
  add_test(NAME cli.doctor_${name} COMMAND ${_expect} ${D_UNPARSED_ARGUMENTS})
  # NCCL_* and RAILTUNE_* of the shell that runs ctest must not leak into what doctor is asked.
  set(_clear NCCL_NET_PLUGIN=unset: NCCL_TUNER_PLUGIN=unset: NCCL_PROFILER_PLUGIN=unset: NCCL_NET=unset:
             NCCL_TOPO_FILE=unset: NCCL_IB_HCA=unset: NCCL_CROSS_NIC=unset: NCCL_MNNVL_ENABLE=unset:
             RAILTUNE_RAIL_MAP=unset: RAILTUNE_STRICT=unset: RAILTUNE_NVML_LIBRARY=unset: NCCL_ENV_PLUGIN=unset:
             RAILTUNE_HOST=unset: RAILTUNE_ENV_TOPO_FILE=unset: RAILTUNE_ENV_PLUGINS=unset:)
  foreach(_env ${D_ENV})
    string(FIND "${_env}" "=" _eq)  # the first '=' only: a value may hold more (NCCL_IB_HCA==mlx5_0)
    string(SUBSTRING "${_env}" 0 ${_eq} _name)
    math(EXPR _eq "${_eq} + 1")
    string(SUBSTRING "${_env}" ${_eq} -1 _value)
    list(APPEND _clear "${_name}=set:${_value}")
  endforeach()
  set_tests_properties(cli.doctor_${name} PROPERTIES FIXTURES_REQUIRED doctor_fixtures ENVIRONMENT_MODIFICATION "${_clear}")
endfunction()

# This machine: whatever it has, nothing fails and NCCL is found or said to be absent.
railtune_doctor_test(this_machine ok "^(ok|skip) +nccl\\.library" "^ok +plugin\\.net\\.load" "0 fail"
                     -- ${_railtune} doctor)
railtune_doctor_test(no_nccl ok "^skip +nccl\\.library +NCCL not looked for"
                     "^ok +plugin\\.net\\.abi +no NCCL here; NCCL 2\\.28\\.9 binds ncclNetPlugin_v11, NCCL 2\\.30\\.7 binds ncclNetPlugin_v12"
                     "^ok +plugin\\.profiler\\.abi .*2\\.28\\.9 binds ncclProfiler_v5, NCCL 2\\.30\\.7 binds ncclProfiler_v6"
                     -- ${_railtune} doctor --no-nccl)
add_test(NAME cli.doctor_json COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/doctor_json.py ${_railtune} --no-nccl)
add_test(NAME cli.doctor_json_failing COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/doctor_json.py ${_railtune}
         --nccl-lib ${_doctor_fx}/no-such-libnccl.so.2)
set_tests_properties(cli.doctor_json cli.doctor_json_failing PROPERTIES FIXTURES_REQUIRED doctor_fixtures)
railtune_doctor_test(usage_error 2 "--frobnicate" -- ${_railtune} doctor --frobnicate)

# The env plugin: selected and answering for the rail map's host; unselected and without a map (one WARN, said);
# bound as v1 by NCCL 2.28.
railtune_doctor_test(env_plugin_answers ok
                     "^ok +env\\.NCCL_ENV_PLUGIN +NCCL_ENV_PLUGIN=railtune -> libnccl-env-railtune\\.so"
                     "^ok +plugin\\.env\\.abi"
                     "^ok +plugin\\.env\\.answer +NCCL 2\\.31\\.2 binds ncclEnvPlugin_v2; for host gb300-r00-t00 it answers NCCL_IB_HCA \"=mlx5_0:1:0"
                     -- ${_railtune} doctor ${_with_map}
                     ENV NCCL_ENV_PLUGIN=railtune LD_LIBRARY_PATH=${RAILTUNE_PLUGIN_DIR})
railtune_doctor_test(env_plugin_without_map ok "^skip +env\\.NCCL_ENV_PLUGIN +unset"
                     "^warn +plugin\\.env\\.answer +NCCL 2\\.31\\.2 binds ncclEnvPlugin_v2; it answers nothing .*RAILTUNE_RAIL_MAP is not set"
                     -- ${_railtune} doctor --no-nccl --no-nvml)
railtune_doctor_test(env_plugin_nccl_2_28 ok "^ok +plugin\\.env\\.abi +NCCL 2\\.28\\.9 binds ncclEnvPlugin_v1 "
                     "^ok +plugin\\.env\\.answer +NCCL 2\\.28\\.9 binds ncclEnvPlugin_v1; for host gb300-r00-t00 it answers NCCL_IB_HCA \"=mlx5_0:1[,\"]"
                     -- ${_railtune} doctor --nccl-lib ${_fake_nccl}/22809/libnccl.so.2 --rail-map ${_rail_map}
                     --host gb300-r00-t00 --no-nvml)
set_tests_properties(cli.doctor_env_plugin_nccl_2_28 PROPERTIES DEPENDS railtune_fake_nccl)

# NCCL: a fake libnccl.so.2 per release; one that crashes, one that hangs, none at all.
railtune_doctor_test(fake_nccl_2_28 ok "^ok +nccl\\.library +NCCL 2\\.28\\.9 \\(22809\\) at .*fake-nccl/22809/libnccl\\.so\\.2"
                     "^ok +plugin\\.net\\.abi +NCCL 2\\.28\\.9 binds ncclNetPlugin_v11 "
                     "^ok +plugin\\.tuner\\.abi +NCCL 2\\.28\\.9 binds ncclTunerPlugin_v5 "
                     "^ok +plugin\\.profiler\\.abi +NCCL 2\\.28\\.9 binds ncclProfiler_v5 "
                     -- ${_railtune} doctor --nccl-lib ${_fake_nccl}/22809/libnccl.so.2)
railtune_doctor_test(fake_nccl_2_30 ok "^ok +nccl\\.library +NCCL 2\\.30\\.7"
                     "^ok +plugin\\.net\\.abi +NCCL 2\\.30\\.7 binds ncclNetPlugin_v12 "
                     "^ok +plugin\\.tuner\\.abi +NCCL 2\\.30\\.7 binds ncclTunerPlugin_v6 "
                     -- ${_railtune} doctor --nccl-lib ${_fake_nccl}/23007/libnccl.so.2)
# 2.31 tries profiler v7 first and still tuner v6 (docs/tuning.md, "Tuner v7"); .newest says what it misses.
railtune_doctor_test(fake_nccl_2_31 ok "^ok +nccl\\.library +NCCL 2\\.31\\.2"
                     "^ok +plugin\\.tuner\\.abi +NCCL 2\\.31\\.2 binds ncclTunerPlugin_v6 "
                     "^ok +plugin\\.tuner\\.newest +a job on NCCL 2\\.31\\.2 binds ncclTunerPlugin_v6, the newest"
                     "^ok +plugin\\.net\\.newest +a job on NCCL 2\\.31\\.2 binds ncclNetPlugin_v12"
                     "^(ok|warn) +plugin\\.profiler\\.newest +a job on NCCL 2\\.31\\.2 (binds ncclProfiler_v7|tries ncclProfiler_v7 first.*misses profiler v7: userTag)"
                     -- ${_railtune} doctor --nccl-lib ${_fake_nccl}/23102/libnccl.so.2)
# Under ASan the child's SIGSEGV or SIGBUS would be caught and turned into exit status 1: let the
# signal kill it, as it does in a release build.
set(_crash_vars)
if(RAILTUNE_SANITIZED)
  set(_crash_vars ASAN_OPTIONS=handle_segv=0:handle_sigbus=0:handle_abort=0)
endif()
set(_crash_env ENV ${_crash_vars})
railtune_doctor_test(nccl_crash 1 "^fail +nccl\\.library .*crashed with signal 11" "^ok +plugin\\.net\\.load"
                     -- ${_railtune} doctor --nccl-lib ${_fake_nccl}/crash/libnccl.so.2 ${_crash_env})
railtune_doctor_test(nccl_hang 1 "^fail +nccl\\.library .*did not finish within 1 s"
                     -- ${_railtune} doctor --timeout 1 --nccl-lib ${_fake_nccl}/hang/libnccl.so.2)
railtune_doctor_test(nccl_missing 1 "^fail +nccl\\.library +cannot load .*no-such-libnccl" "fix: point --nccl-lib"
                     -- ${_railtune} doctor --nccl-lib ${_doctor_fx}/no-such-libnccl.so.2)
set_tests_properties(cli.doctor_fake_nccl_2_28 cli.doctor_fake_nccl_2_30 cli.doctor_fake_nccl_2_31 cli.doctor_nccl_crash cli.doctor_nccl_hang
                     PROPERTIES FIXTURES_REQUIRED doctor_fixtures DEPENDS railtune_fake_nccl)

# Plugins that cannot work here: one clear line each, exit 1.
railtune_doctor_test(foreign_arch 1 "^fail +plugin\\.net\\.elf +libnccl-net-railtune\\.so is built for aarch64 ELF64, this machine is"
                     "^fail +plugin\\.tuner\\.load +dlopen.* fails: " "^fail +plugin\\.profiler\\.abi"
                     -- ${_railtune} doctor --no-nccl --plugin-dir ${_doctor_fx}/aarch64)
railtune_doctor_test(truncated 1 "^fail +plugin\\.net\\.elf +libnccl-net-railtune\\.so: truncated"
                     "^fail +plugin\\.net\\.load +dlopen.*(fails: |crashed with signal)"
                     -- ${_railtune} doctor --no-nccl --plugin-dir ${_doctor_fx}/truncated ${_crash_env})
railtune_doctor_test(missing_plugins 1 "^fail +plugin\\.net\\.file +libnccl-net-railtune\\.so not found in .*empty"
                     -- ${_railtune} doctor --no-nccl --plugin-dir ${_doctor_fx}/empty)

# NCCL_TOPO_FILE: a FIFO (doctor must not block on it), a directory, missing, malformed, and one that
# disagrees with the rail map.
railtune_doctor_test(topo_fifo 1 "^fail +topo\\.file +NCCL_TOPO_FILE=.*topo\\.fifo is a FIFO, not a regular file"
                     -- ${_railtune} doctor --no-nccl ENV NCCL_TOPO_FILE=${_doctor_fx}/topo.fifo)
railtune_doctor_test(topo_dir 1 "^fail +topo\\.file .*topo-dir is a directory"
                     -- ${_railtune} doctor --no-nccl ENV NCCL_TOPO_FILE=${_doctor_fx}/topo-dir)
railtune_doctor_test(topo_missing 1 "^fail +topo\\.file .*no-such-topo\\.xml: No such file or directory"
                     -- ${_railtune} doctor --no-nccl ENV NCCL_TOPO_FILE=${_doctor_fx}/no-such-topo.xml)
railtune_doctor_test(topo_malformed 1 "^fail +topo\\.file +NCCL_TOPO_FILE: .*topo-bad\\.xml:"
                     -- ${_railtune} doctor --no-nccl ENV NCCL_TOPO_FILE=${_doctor_fx}/topo-bad.xml)
railtune_doctor_test(topo_vs_rail_map 1 "^fail +topo\\.file .*disagrees with the rail map"
                     -- ${_railtune} doctor ${_with_map}
                     ENV NCCL_TOPO_FILE=${PROJECT_SOURCE_DIR}/tests/data/golden/nccl_xml/dgx-h100.xml)

# A topology file doctor may not read: no "regenerate" hint, the path and "permission denied". Root reads
# anything, so as_unprivileged.sh runs doctor as nobody there (or skips the test, saying why).
add_test(NAME cli.doctor_topo_unreadable
         COMMAND ${_expect} 1 "^fail +topo\\.file +NCCL_TOPO_FILE=.*topo-unreadable\\.xml cannot be read: Permission denied -- fix: make it readable"
                 -- ${CMAKE_CURRENT_SOURCE_DIR}/as_unprivileged.sh ${_railtune} doctor --no-nccl --no-nvml)
set_tests_properties(cli.doctor_topo_unreadable PROPERTIES FIXTURES_REQUIRED doctor_fixtures SKIP_RETURN_CODE 77
                     ENVIRONMENT "NCCL_TOPO_FILE=${_doctor_fx}/topo-unreadable.xml")

# The rail map against the RDMA devices of the discovery tests' fake sysfs trees.
railtune_doctor_test(nics_match ok "^ok +fabric\\.rail_map .*4 rail\\(s\\); host gb300-r00-t00: 4 GPU\\(s\\), 4 NIC\\(s\\)"
                     "^warn +fabric\\.nics +all 4 rail HCA\\(s\\) present and ACTIVE; on no rail: mlx5_4"
                     -- ${_railtune} doctor ${_with_map} --root ${_sysfs}/gb300-1plane)
railtune_doctor_test(nics_missing 1 "^fail +fabric\\.nics .*missing here: mlx5_1 \\(rail 1\\), mlx5_2 \\(rail 2\\)"
                     -- ${_railtune} doctor ${_with_map} --root ${_sysfs}/roce-h100)
railtune_doctor_test(no_rdma ok "^skip +fabric\\.nics +no RDMA device under" "^skip +fabric\\.rail_map"
                     -- ${_railtune} doctor --no-nccl --root ${_doctor_fx}/empty)
railtune_doctor_test(host_not_in_map ok "^warn +fabric\\.rail_map .*no entry for host elsewhere"
                     -- ${_railtune} doctor --no-nccl --rail-map ${_rail_map} --host elsewhere)
railtune_doctor_test(bad_rail_map 1 "^fail +fabric\\.rail_map .*topo-bad\\.xml"
                     -- ${_railtune} doctor --no-nccl --rail-map ${_doctor_fx}/topo-bad.xml)

# NCCL's and railtune's variables.
railtune_doctor_test(ib_hca_excludes_rails 1
                     "^fail +env\\.NCCL_IB_HCA +NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_9 .*excludes rail HCA\\(s\\) mlx5_2:1, mlx5_3:1"
                     -- ${_railtune} doctor ${_with_map} ENV NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_9)
railtune_doctor_test(ib_hca_off_rail ok "^warn +env\\.NCCL_IB_HCA .*names HCA\\(s\\) on no rail: mlx5_4"
                     -- ${_railtune} doctor ${_with_map} ENV NCCL_IB_HCA==mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4)
railtune_doctor_test(ib_hca_exclusion_ok ok "^ok +env\\.NCCL_IB_HCA +NCCL_IB_HCA=\\^mlx5_4 .*every rail HCA is accepted"
                     -- ${_railtune} doctor ${_with_map} ENV NCCL_IB_HCA=^mlx5_4)
railtune_doctor_test(cross_nic ok "^warn +env\\.NCCL_CROSS_NIC +NCCL_CROSS_NIC=1 on a rail-optimized fabric \\(4 rails\\)"
                     -- ${_railtune} doctor ${_with_map} ENV NCCL_CROSS_NIC=1)
railtune_doctor_test(mnnvl_without_imex 1 "^fail +env\\.NCCL_MNNVL_ENABLE .*nvidia-caps-imex-channels has no channel"
                     -- ${_railtune} doctor --no-nccl --no-nvml --root ${_doctor_fx}/empty ENV NCCL_MNNVL_ENABLE=1)
railtune_doctor_test(plugin_unresolvable 1
                     "^fail +env\\.NCCL_NET_PLUGIN +NCCL_NET_PLUGIN=nosuchplugin: nosuchplugin does not resolve: .*libnccl-net-nosuchplugin\\.so"
                     -- ${_railtune} doctor --no-nccl ENV NCCL_NET_PLUGIN=nosuchplugin)
railtune_doctor_test(plugin_by_name ok "^ok +env\\.NCCL_NET_PLUGIN +NCCL_NET_PLUGIN=railtune: railtune -> libnccl-net-railtune\\.so"
                     "^ok +env\\.NCCL_TUNER_PLUGIN +unset: .*takes the tuner from railtune's net library"
                     "^warn +env\\.NCCL_NET +NCCL_NET=IB"
                     -- ${_railtune} doctor --no-nccl ENV NCCL_NET_PLUGIN=railtune LD_LIBRARY_PATH=${RAILTUNE_PLUGIN_DIR} NCCL_NET=IB)
railtune_doctor_test(plugin_path_wrong_kind 1 "^fail +env\\.NCCL_PROFILER_PLUGIN .*defines no ncclProfiler_vN symbol"
                     -- ${_railtune} doctor --no-nccl ENV NCCL_PROFILER_PLUGIN=${RAILTUNE_PLUGIN_DIR}/libnccl-tuner-railtune.so)
railtune_doctor_test(railtune_variables 1 "^fail +env\\.RAILTUNE_STRICT .*maybe" "^warn +env\\.RAILTUNE_RAILMAP +RAILTUNE_RAILMAP is not a railtune variable"
                     -- ${_railtune} doctor --no-nccl ENV RAILTUNE_STRICT=maybe RAILTUNE_RAILMAP=x)

# GPUs through the discovery tests' fake NVML (absent from the cross and TSan test sets).
if(NOT DEFINED RAILTUNE_TESTS OR RAILTUNE_TESTS STREQUAL "all")
  set(_nvml_cfg ${PROJECT_SOURCE_DIR}/tests/data/discover/nvml)
  railtune_doctor_test(nvml_fabric ok "^ok +gpu\\.nvml +driver 580\\.82\\.07, 4 GPU\\(s\\): NVIDIA GB300"
                       "^ok +gpu\\.fabric +4 GPU\\(s\\) registered with the NVLink fabric, clique 3f9c2a71-4b8e-4d05-a6c3-9e1d7b2f5c40\\.32766"
                       -- ${_railtune} doctor --no-nccl --nvml-library $<TARGET_FILE:fake_nvml>
                       ENV FAKE_NVML_CONFIG=${_nvml_cfg}/gb300-tray.json)
  railtune_doctor_test(nvml_degraded ok "^warn +gpu\\.fabric +NVLink fabric: GPU 3 in progress"
                       -- ${_railtune} doctor --no-nccl --nvml-library $<TARGET_FILE:fake_nvml>
                       ENV FAKE_NVML_CONFIG=${_nvml_cfg}/gb300-tray-degraded.json)
endif()

# NVML as the user names it (--nvml-library, RAILTUNE_NVML_LIBRARY) is loaded in a child, like NCCL: a
# truncated copy (ld.so dies with SIGBUS here; a loader that refuses it instead is fine too) is a fail
# line and doctor still prints everything, JSON too;
# a FIFO or a directory is refused by name before any dlopen (a FIFO would block the loader: the test's
# TIMEOUT catches a hang); a library of another machine is named so; a named library that does not load
# is fail, not "no NVIDIA driver?".
set(_truncated_lib ${_doctor_fx}/truncated/libnccl-net-railtune.so)
railtune_doctor_test(nvml_truncated 1
                     "^fail +gpu\\.nvml +(loading NVML|cannot load) --nvml-library .*truncated/libnccl-net-railtune\\.so(:| in a child process: the child crashed with signal 7) .*ELF: truncated"
                     "^ok +plugin\\.net\\.load" "[0-9]+ fail"
                     -- ${_railtune} doctor --no-nccl --nvml-library ${_truncated_lib} ${_crash_env})
railtune_doctor_test(nvml_truncated_env 1
                     "^fail +gpu\\.nvml +(loading NVML|cannot load) RAILTUNE_NVML_LIBRARY=.*truncated/libnccl-net-railtune\\.so.*ELF: truncated"
                     -- ${_railtune} doctor --no-nccl ENV RAILTUNE_NVML_LIBRARY=${_truncated_lib} ${_crash_vars})
add_test(NAME cli.doctor_json_nvml_truncated COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/doctor_json.py ${_railtune}
         --no-nccl --nvml-library ${_truncated_lib})
set_tests_properties(cli.doctor_json_nvml_truncated PROPERTIES FIXTURES_REQUIRED doctor_fixtures)
railtune_doctor_test(nvml_fifo 1 "^fail +gpu\\.nvml +--nvml-library .*topo\\.fifo: .*topo\\.fifo is a FIFO, not a regular file; not loaded"
                     -- ${_railtune} doctor --no-nccl --nvml-library ${_doctor_fx}/topo.fifo)
railtune_doctor_test(nvml_dir 1 "^fail +gpu\\.nvml +RAILTUNE_NVML_LIBRARY=.*topo-dir: .*topo-dir is a directory, not a regular file"
                     -- ${_railtune} doctor --no-nccl ENV RAILTUNE_NVML_LIBRARY=${_doctor_fx}/topo-dir)
set_tests_properties(cli.doctor_nvml_fifo PROPERTIES TIMEOUT 60)
railtune_doctor_test(nvml_missing_named 1 "^fail +gpu\\.nvml +cannot load --nvml-library .*no-such-nvml\\.so: No such file or directory"
                     -- ${_railtune} doctor --no-nccl --nvml-library ${_doctor_fx}/no-such-nvml.so)
railtune_doctor_test(nvml_unresolved_named 1 "^fail +gpu\\.nvml +cannot load RAILTUNE_NVML_LIBRARY=libno-such-nvml\\.so: .*cannot open shared object file"
                     -- ${_railtune} doctor --no-nccl ENV RAILTUNE_NVML_LIBRARY=libno-such-nvml.so)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64)$")  # the fixture is foreign only where the machine is not aarch64
  railtune_doctor_test(nvml_foreign_arch 1
                       "^fail +gpu\\.nvml +--nvml-library .*aarch64/libnccl-net-railtune\\.so is built for aarch64 ELF64, this machine is x86_64"
                       -- ${_railtune} doctor --no-nccl --nvml-library ${_doctor_fx}/aarch64/libnccl-net-railtune.so)
endif()
# Through the fake NVML: one whose nvmlInit never returns is killed at --timeout; one whose nvmlInit
# fails is fail when named.
if(NOT DEFINED RAILTUNE_TESTS OR RAILTUNE_TESTS STREQUAL "all")
  railtune_doctor_test(nvml_hang 1 "^fail +gpu\\.nvml +loading NVML --nvml-library .* in a child process: the child did not finish within 1 s"
                       -- ${_railtune} doctor --no-nccl --timeout 1 --nvml-library $<TARGET_FILE:fake_nvml>
                       ENV FAKE_NVML_CONFIG=${_nvml_cfg}/hang-init.json)
  railtune_doctor_test(nvml_init_fails 1 "^fail +gpu\\.nvml +--nvml-library .*nvmlInit_v2 failed: NVML_ERROR_DRIVER_NOT_LOADED"
                       -- ${_railtune} doctor --no-nccl --nvml-library $<TARGET_FILE:fake_nvml>
                       ENV FAKE_NVML_CONFIG=${_nvml_cfg}/fail-init.json)
  set_tests_properties(cli.doctor_nvml_hang PROPERTIES TIMEOUT 60)
endif()
