# `railtune tuner decisions` and the demo's tuner tables (cli/tuner*.cc, cli/demo/tuner.cc).
# Goldens: tests/data/golden/tuner_decisions/; RAILTUNE_UPDATE_GOLDEN=1 ctest -R '^cli\.tuner_decisions_golden'
# rewrites them. Every test runs with the variables the tuner and its configuration digest read cleared
# (common/config_digest.cc), so a developer's shell cannot change the outputs.
set(_tuner_rules ${CMAKE_CURRENT_SOURCE_DIR}/tuner_decisions_rules.csv)
set(_tuner_golden ${PROJECT_SOURCE_DIR}/tests/data/golden/tuner_decisions)
set(_tuner_logs ${PROJECT_SOURCE_DIR}/tests/data/tuner/nccl)
set(_tuner_lib $<TARGET_FILE_DIR:railtune_tuner_plugin>)
set(_tuner_echo ${RAILTUNE_TEST_PLUGIN_DIR}/libnccl-tuner-v6.so)
# Two GB300 NVL72 racks with MNNVL, two collectives, 4 KiB..64 MiB, with rules that change NCCL's pick.
set(_tuner_case tuner decisions --nodes 2 --ranks 144 --collectives AllReduce,ReduceScatter --min-bytes 4K
                --max-bytes 64M --config ${_tuner_rules})
set(_tuner_tests "")

foreach(format_ext table:txt csv:csv json:json)
  string(REPLACE ":" ";" _pair ${format_ext})
  list(GET _pair 0 _format)
  list(GET _pair 1 _ext)
  add_test(NAME cli.tuner_decisions_golden_${_format}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tuner_golden.sh ${_tuner_golden}/two-racks-mnnvl.${_ext}
                   ${PROJECT_SOURCE_DIR} ${_tuner_lib} -- ${_railtune} ${_tuner_case} --format ${_format})
  list(APPEND _tuner_tests cli.tuner_decisions_golden_${_format})
endforeach()

# A function, not a macro: a macro would re-read the regexes' backslashes.
function(tuner_expect name)
  add_test(NAME cli.tuner_decisions_${name} COMMAND ${_expect} ${ARGN})
  set(_tuner_tests ${_tuner_tests} cli.tuner_decisions_${name} PARENT_SCOPE)
endfunction()

tuner_expect(rule_reasons ok "^AllReduce +1M +NVLSTree +Simple +32 +Ring +Simple +16 +[A-Za-z]+ +[A-Za-z0-9]+ +rule 2 \\(tuner_decisions_rules.csv:5\\)$"
             "^ReduceScatter +4K .* NCCL$" "^config digest: +[0-9a-f]{16}$" -- ${_railtune} ${_tuner_case})
# The echo test plugin prefers Ring/Simple on 33 channels whatever the rules say: a plugin that disagrees.
tuner_expect(mismatch fail "MISMATCH: rule 1 \\(tuner_decisions_rules.csv:3\\) says Ring/LL128 with NCCL's channels, the plugin gave Ring/Simple ch 33"
             "MISMATCH: no rule applies" "differs from what the rules say in 30 decision"
             "^note: the plugin edited NCCL's cost-model constants at init$" --
             ${_railtune} ${_tuner_case} --plugin ${_tuner_echo})
tuner_expect(missing_plugin fail "tuner plugin not found: .*/no-such-tuner.so" --
             ${_railtune} tuner decisions --nodes 1 --ranks 4 --plugin ${CMAKE_CURRENT_BINARY_DIR}/no-such-tuner.so)
tuner_expect(not_a_tuner fail "binds no tuner from .*libnccl-tuner-nosym.so" --
             ${_railtune} tuner decisions --nodes 1 --ranks 4 --plugin ${RAILTUNE_TEST_PLUGIN_DIR}/libnccl-tuner-nosym.so)
# A partial rack with MNNVL (8 GPUs on 2 trays): one NCCL node of 8 ranks, graph data derived from the profile's.
tuner_expect(partial_rack ok "^railtune tuner decisions: gb300-nvl72, 8 ranks on 1 node" "^AllReduce +4K " --
             ${_railtune} tuner decisions --nodes 1 --ranks 8 --collectives AllReduce --max-bytes 64K --config ${_tuner_rules})
# The NVLS correction follows the NVLink domain against the fabric's GPUs per host: 8 ranks on 2 GB300 trays
# span hosts (multi-node NVLink), a domain of one tray does not; never "within one chassis".
tuner_expect(nvls_correction_two_trays ok
             "^correction: NVLS efficiency 0.677 \\(NCCL 0.74\\), applied: an NVLink domain of 8 ranks spans hosts of at most 4 GPUs"
             -- ${_railtune} tuner decisions --nodes 1 --ranks 8 --collectives AllReduce --min-bytes 1M --max-bytes 1M)
tuner_expect(nvls_correction_one_tray ok
             "^correction: NVLS efficiency 0.677 \\(NCCL 0.74\\), not applied: an NVLink domain of 4 ranks fits in one host of 4 GPUs"
             -- ${_railtune} tuner decisions --nodes 1 --ranks 4 --collectives AllReduce --min-bytes 1M --max-bytes 1M)
# The table ends with how many rows railtune changed, and why.
tuner_expect(changed_rows ok "^15 of 30 rows changed by railtune \\(its pick differs from NCCL's\\): 15 by rules, 0 by the model$"
             -- ${_railtune} ${_tuner_case})
# Collective names in a rules CSV are read without case, as --collectives reads them: "AllReduce" is allreduce.
tuner_expect(rules_nccl_names ok "^AllReduce +4K .* rule 1 \\(tuner_decisions_rules_nccl_names.csv:3\\)$"
             "^AllGather +1M .* rule 2 \\(tuner_decisions_rules_nccl_names.csv:4\\)$" "^rules: .* \\(2 rules\\)$" --
             ${_railtune} tuner decisions --nodes 1 --ranks 4 --collectives allreduce,ALLGATHER --min-bytes 4K
             --max-bytes 1M --config ${CMAKE_CURRENT_SOURCE_DIR}/tuner_decisions_rules_nccl_names.csv)
tuner_expect(ranks_not_divisible fail "--ranks 145 is not divisible by --nodes 2" --
             ${_railtune} tuner decisions --nodes 2 --ranks 145)
tuner_expect(too_many_ranks_per_node fail "72 ranks per node, but a node of gb300-nvl72 without MNNVL \\(a host\\) has 4 GPUs"
             -- ${_railtune} tuner decisions --nodes 1 --ranks 72 --mnnvl off)
tuner_expect(too_many_ranks_per_rack fail "144 ranks per node, but a node of gb300-nvl72 with MNNVL .* has 72 GPUs" --
             ${_railtune} tuner decisions --nodes 1 --ranks 144)
tuner_expect(unknown_profile fail "--profile dgx-a100 is not a known hardware profile \\(gb300-nvl72" --
             ${_railtune} tuner decisions --nodes 1 --ranks 8 --profile dgx-a100)
tuner_expect(bad_size fail "--max-bytes '16Q': unknown unit" -- ${_railtune} tuner decisions --nodes 1 --ranks 4 --max-bytes 16Q)
tuner_expect(empty_size_range fail "no power of two between --min-bytes 5 and --max-bytes 7" --
             ${_railtune} tuner decisions --nodes 1 --ranks 4 --min-bytes 5 --max-bytes 7)
tuner_expect(unknown_collective fail "unknown collective 'AllToAll'" --
             ${_railtune} tuner decisions --nodes 1 --ranks 4 --collectives AllReduce,AllToAll)
# A rules file the plugin rejects: its failure behaviour (pass-through and one WARN) shows as reason NCCL,
# and the command exits 1, since the rules column is not what was asked for. The error is told once (by
# the plugin's WARN), then what follows from it.
tuner_expect(bad_config fail "warning: plugin: WARN .*init failed: .*tuner_decisions_bad_rules.csv:3:.*ringg"
             "warning: rules: .*tuner_decisions_bad_rules.csv cannot be used, so the plugin leaves every decision to NCCL"
             "^AllReduce +128K .* NCCL$" --
             ${_railtune} tuner decisions --nodes 1 --ranks 4 --collectives AllReduce
             --config ${CMAKE_CURRENT_SOURCE_DIR}/tuner_decisions_bad_rules.csv)
# A directory as --config: the plugin and the command judge it alike (one reader, common/regular_file.h):
# not a regular file, so the plugin passes NCCL's choice through with one WARN saying so.
tuner_expect(config_directory fail
             "warning: plugin: WARN .*init failed: RAILTUNE_TUNER_CONFIG=.*/tests/cli: is a directory, not a regular file"
             "warning: rules: .*/tests/cli cannot be used" "^AllReduce +128K .* NCCL$" --
             ${_railtune} tuner decisions --nodes 1 --ranks 4 --collectives AllReduce --config ${CMAKE_CURRENT_SOURCE_DIR})
tuner_expect(tuning_log ok "^NCCL column: +NCCL 2.30 TUNING log .*dgx-h100-one-host-2.30.log" "^AllReduce +16G +NVLS +Simple +16 +NVLS +Simple +16 +[A-Za-z]+ +[A-Za-z0-9]+ +NCCL$" --
             ${_railtune} tuner decisions --profile dgx-h100 --nodes 1 --ranks 8
             --nccl-tuning-log ${_tuner_logs}/dgx-h100-one-host-2.30.log)
tuner_expect(bad_tuning_log fail "truncated-row.log:[0-9]+:" -- ${_railtune} tuner decisions --profile dgx-h100
             --nodes 1 --ranks 8 --nccl-tuning-log ${_tuner_logs}/truncated-row.log)
tuner_expect(nccl_228 ok "emulated NCCL 2.28" "ncclTunerPlugin_v5" --
             ${_railtune} tuner decisions --nodes 1 --ranks 4 --nccl 2.28 --collectives Broadcast)

# What the tuner never sees (emulator/nccl_model/bypass.h): with symmetric windows on one NVL72 rack NCCL 2.30 runs
# symmetric kernels for AllReduce and AllGather, and the copy engines for an AllGather above NCCL_SYM_CE_THRESHOLD
# (8 Mi floats per rank: 4G over 72 ranks is above, 2G below); Broadcast stays tuned; no row counts as changed.
set(_tuner_bypass tuner decisions --nodes 1 --ranks 72 --collectives AllReduce,AllGather,Broadcast --min-bytes 2G
                  --max-bytes 4G)
tuner_expect(bypass_symmetric ok "^call: +datatype float, op sum, registration symmetric, CTA policy default$"
             "^AllReduce +2G .* NCCL decides without a tuner: symmetric kernel$"
             "^AllGather +2G .* NCCL decides without a tuner: symmetric kernel$"
             "^AllGather +4G .* NCCL decides without a tuner: copy engine \\(AllGather above NCCL_SYM_CE_THRESHOLD\\)$"
             "^Broadcast +4G .* tuned$" "4 rows NCCL decides without a tuner \\(the path column\\), not counted$"
             "^  holds: 14913080 elements per rank > NCCL_SYM_CE_THRESHOLD 8388608 \\[src/enqueue.cc:31,3110-3113@v2.30.7\\]$"
             -- ${_railtune} ${_tuner_bypass} --registration symmetric)
# Without registration nothing is bypassed and the outputs stay as they were (no path column).
tuner_expect(bypass_none ok "^collective +size .* reason$" -- ${_railtune} ${_tuner_bypass})
# CTA policy ZERO (here from NCCL_CTA_POLICY, as NCCL reads it) sends every AllGather to the copy engines; 2.28 too.
tuner_expect(bypass_cta_zero ok "^AllGather +2G .* NCCL decides without a tuner: copy engine \\(zero-SM CTA policy\\)$"
             "^call: .* CTA policy zero$" -- env NCCL_CTA_POLICY=ZERO ${_railtune} ${_tuner_bypass} --registration 2 --nccl 2.28)
# Across racks under CTA policy ZERO an AllGather on windows may take NCCL's hierarchical CE (RMA proxy, not emulated):
# the row is tuned with the caveat, never an outright verdict.
tuner_expect(bypass_hierarchical_caveat ok
             "^AllGather +2G .* tuned unless NCCL's RMA proxy is up: then copy engine \\(hierarchical, zero-SM CTA policy\\)"
             -- ${_railtune} tuner decisions --nodes 2 --ranks 144 --collectives AllGather --min-bytes 2G --max-bytes 2G
             --registration symmetric --cta-policy zero)
# Local registration (ncclCommRegister) is not a symmetric window: NCCL falls back to the tuned path.
tuner_expect(bypass_local ok "^AllReduce +2G .* tuned$" -- ${_railtune} ${_tuner_bypass} --registration local)
tuner_expect(bypass_bad_registration fail "--registration must be none, local or symmetric \\(nccl-tests -R 0/1/2\\), not 'window'"
             -- ${_railtune} ${_tuner_bypass} --registration window)
tuner_expect(bypass_bad_cta_env fail "NCCL_CTA_POLICY 'fast' names no CTA policy" --
             env NCCL_CTA_POLICY=fast ${_railtune} ${_tuner_bypass})
tuner_expect(bypass_bad_threshold fail "NCCL_SYM_CE_THRESHOLD='8M' is not an integer" --
             env NCCL_SYM_CE_THRESHOLD=8M ${_railtune} ${_tuner_bypass} --registration symmetric)
add_test(NAME cli.tuner_decisions_golden_bypass
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tuner_golden.sh ${_tuner_golden}/one-rack-symmetric.json
                 ${PROJECT_SOURCE_DIR} ${_tuner_lib} -- ${_railtune} ${_tuner_bypass} --registration symmetric
                 --format json)
add_test(NAME cli.tuner_decisions_bypass_schema
         COMMAND ${PROJECT_SOURCE_DIR}/tests/support/validate_schema.py ${_formats}/tuner-decisions.schema.json
                 ${_tuner_golden}/one-rack-symmetric.json)
list(APPEND _tuner_tests cli.tuner_decisions_golden_bypass cli.tuner_decisions_bypass_schema)

# A fitted model (--model-file): the golden model covers one GB300 tray (its profile's rail map, written for it),
# writes its identified constants and moves NCCL's pick at 4M and 8M; on GB200 or at 2 nodes nothing changes,
# with the plugin's reason in the header; rules still win over the fit.
set(_tuner_fit ${_formats}/tuner-model.example.json)
set(_tuner_fit_case tuner decisions --nodes 1 --ranks 4 --collectives AllReduce --min-bytes 1M --max-bytes 16M
                    --model-file ${_tuner_fit})
tuner_expect(model_file ok "^fit verdict: +usable at 1node: leave-one-size-out worst 4.2 %"
             "^constant: +baseLatencies\\[Ring\\]\\[LL128\\] 14 -> 9.5$" "^constant: +perChMaxRingLL128Bws\\[Blackwell\\]\\[1NODE\\] 40 -> 28$"
             "^rail map: +the profile's \\(gb300-nvl72, written for --model-file\\)$"
             "^AllReduce +4M +Ring +LL +32 +Ring +Simple +32 .* Ring +Simple +32 +fit +fit$"
             "^AllReduce +16M .* NCCL \\(the fit agrees\\) +NCCL$" ", 2 by the fit$" -- ${_railtune} ${_tuner_fit_case})
tuner_expect(model_file_other_gpu ok "no fit applies: fits NVIDIA GB300/IB InfiniBand 800G; this communicator's GPU and fabric are NVIDIA GB200/IB InfiniBand 400G"
             "^AllReduce +8M .* no fit \\(see the header\\) +NCCL$" ", 0 by the fit$" --
             ${_railtune} ${_tuner_fit_case} --profile gb200-nvl72)
tuner_expect(model_file_not_usable ok "the fit for NVIDIA GB300/IB InfiniBand 800G is not usable at 2nodes \\(no data at 2 nodes\\)"
             "^AllReduce +8M .* no fit \\(see the header\\) +NCCL$" --
             ${_railtune} tuner decisions --nodes 2 --ranks 8 --collectives AllReduce --min-bytes 8M --max-bytes 8M --model-file ${_tuner_fit})
tuner_expect(model_file_rules_win ok "^AllReduce +4M .* fit +rule 1 \\(tuner_decisions_fit_rules.csv:2\\)$"
             "^AllReduce +8M .* fit +fit$" -- ${_railtune} ${_tuner_fit_case}
             --config ${CMAKE_CURRENT_SOURCE_DIR}/tuner_decisions_fit_rules.csv)
# The cost model is subordinate to a fit: with RAILTUNE_TUNER_MODEL=on it only advises where the fit applies.
tuner_expect(model_file_model_on ok "^model column: +RAILTUNE_TUNER_MODEL=on: advice only, a fit applies"
             "^AllReduce +4M .* fit +fit$" ", 0 by the model, 2 by the fit$" --
             env RAILTUNE_TUNER_MODEL=on ${_railtune} ${_tuner_fit_case})
# A fit usable at its measured shapes only (8 and 16 ranks on one node): it applies at 8 ranks, with its correction of
# 8 ranks' own, and not at 32, which nobody measured.
set(_tuner_fit_shapes ${CMAKE_CURRENT_SOURCE_DIR}/tuner_decisions_fit_measured_shapes.json)
tuner_expect(model_file_measured_shape ok "^fit verdict: +usable at 1node, at its measured shapes only, this one among them"
             "8 ranks, 1 node: 1 correction of this shape's own" ", [1-9][0-9]* by the fit$" --
             ${_railtune} tuner decisions --nodes 1 --ranks 8 --collectives AllReduce --min-bytes 1M --max-bytes 4M
             --model-file ${_tuner_fit_shapes})
tuner_expect(model_file_unmeasured_shape ok
             "usable at 1node only at the shapes it measured \\(8 ranks, 1 node. 16 ranks, 1 node\\), not this communicator's 32 ranks, 1 node"
             "^AllReduce +1M .* no fit \\(see the header\\) +NCCL$" ", 0 by the fit$" --
             ${_railtune} tuner decisions --nodes 1 --ranks 32 --collectives AllReduce --min-bytes 1M --max-bytes 4M
             --model-file ${_tuner_fit_shapes})
add_test(NAME cli.tuner_decisions_golden_fitted
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tuner_golden.sh ${_tuner_golden}/one-tray-fitted.json
                 ${PROJECT_SOURCE_DIR} ${_tuner_lib} -- ${_railtune} ${_tuner_fit_case} --format json)
add_test(NAME cli.tuner_decisions_fitted_example_current
         COMMAND ${CMAKE_COMMAND} -E compare_files ${_tuner_golden}/one-tray-fitted.json
                 ${_formats}/tuner-decisions-fitted.example.json)
add_test(NAME cli.tuner_decisions_fitted_schema
         COMMAND ${PROJECT_SOURCE_DIR}/tests/support/validate_schema.py ${_formats}/tuner-decisions.schema.json
                 ${_tuner_golden}/one-tray-fitted.json)
list(APPEND _tuner_tests cli.tuner_decisions_golden_fitted cli.tuner_decisions_fitted_schema)

# A --config that is missing or does not parse: exit 1, each warning once in every format.
add_test(NAME cli.tuner_decisions_unusable_config
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tuner_decisions_config.sh ${_railtune}
                 ${CMAKE_CURRENT_SOURCE_DIR}/tuner_decisions_bad_rules.csv ${CMAKE_CURRENT_BINARY_DIR}/tuner_decisions_config)
list(APPEND _tuner_tests cli.tuner_decisions_unusable_config)

# The JSON golden is the format's documented example; both fit the schema.
add_test(NAME cli.tuner_decisions_example_current
         COMMAND ${CMAKE_COMMAND} -E compare_files ${_tuner_golden}/two-racks-mnnvl.json ${_formats}/tuner-decisions.example.json)
add_test(NAME cli.tuner_decisions_schema
         COMMAND ${PROJECT_SOURCE_DIR}/tests/support/validate_schema.py ${_formats}/tuner-decisions.schema.json
                 ${_tuner_golden}/two-racks-mnnvl.json)
add_test(NAME cli.tuner_demo COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tuner_demo.sh ${_railtune} ${CMAKE_CURRENT_BINARY_DIR}/tuner_demo)
list(APPEND _tuner_tests cli.tuner_decisions_schema cli.tuner_demo)
set(_tuner_env "")
foreach(var RAILTUNE_TUNER_CONFIG NCCL_TUNER_CONFIG_FILE RAILTUNE_RAIL_MAP RAILTUNE_TUNER_MODEL RAILTUNE_TUNER_MODEL_FILE
            RAILTUNE_STRICT
            RAILTUNE_INJECT_FAULT NCCL_ALGO NCCL_PROTO NCCL_MIN_NCHANNELS NCCL_MAX_NCHANNELS NCCL_NVLS_ENABLE
            NCCL_MNNVL_ENABLE NCCL_CROSS_NIC NCCL_NET_MERGE_POLICY NCCL_CTA_POLICY NCCL_SYM_CE_THRESHOLD
            NCCL_WIN_ENABLE NCCL_CUMEM_ENABLE NCCL_SYM_NOWIN_ENABLE NCCL_SYM_TMA_ENABLE NCCL_SYM_KERNEL)
  list(APPEND _tuner_env "${var}=unset:")
endforeach()
set_tests_properties(${_tuner_tests} PROPERTIES ENVIRONMENT_MODIFICATION "${_tuner_env}")
# Under RAILTUNE_STRICT=1 the plugin's init fails on bad rules, and NCCL would fail the communicator.
add_test(NAME cli.tuner_decisions_strict_bad_config
         COMMAND ${_expect} fail "init returned ncclResult 3: NCCL would fail the communicator" "plugin: WARN .*ringg" --
                 ${_railtune} tuner decisions --nodes 1 --ranks 4 --config ${CMAKE_CURRENT_SOURCE_DIR}/tuner_decisions_bad_rules.csv)
set_tests_properties(cli.tuner_decisions_strict_bad_config PROPERTIES ENVIRONMENT_MODIFICATION
                     "${_tuner_env};RAILTUNE_STRICT=set:1")

# The computation and formats called directly (cli/tuner/compute.h, emulator/tuner_decisions/render.h).
add_executable(tuner_decisions_tests ${CMAKE_CURRENT_LIST_DIR}/tuner_decisions_test.cc
                                     ${CMAKE_CURRENT_LIST_DIR}/tuner_decisions_fit_test.cc)
target_link_libraries(tuner_decisions_tests PRIVATE railtune_cli_tuner GTest::gtest_main)
target_compile_definitions(tuner_decisions_tests PRIVATE
  RAILTUNE_TEST_TUNER_PLUGIN="$<TARGET_FILE:railtune_tuner_plugin>"
  RAILTUNE_TEST_ECHO_TUNER="${_tuner_echo}"
  RAILTUNE_TEST_TUNER_RULES="${_tuner_rules}"
  RAILTUNE_TEST_TUNER_BAD_RULES="${CMAKE_CURRENT_LIST_DIR}/tuner_decisions_bad_rules.csv"
  RAILTUNE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(tuner_decisions_tests railtune_tuner_plugin rt_test_tuner_v6)
gtest_discover_tests(tuner_decisions_tests TEST_PREFIX cli. NO_PRETTY_VALUES DISCOVERY_TIMEOUT 30)
