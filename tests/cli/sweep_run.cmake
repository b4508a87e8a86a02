# `railtune sweep run` (docs/sweep.md, "Running a sweep") over the stand-in nccl-tests binary of tests/data/sweep
# (python3, no GPU): a real sweep with its manifest and resume, a failed run, a timeout, launchers, Ctrl-C, chunk
# sizes, the dry run, a sweep killed mid-run, a writer that escaped a run's group, a 300 MiB output (sweep_run.sh),
# and the usage errors.
set(_sweep_data ${PROJECT_SOURCE_DIR}/tests/data/sweep)
set(_sweep_standin ${_sweep_data}/fake_all_reduce_perf)
set(_sweep_out ${CMAKE_CURRENT_BINARY_DIR}/sweep_run)
foreach(_scenario matrix failing timeout launcher interrupt chunk dry_run orphan escaped flood)
  add_test(NAME cli.sweep_run_${_scenario}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/sweep_run.sh ${_scenario} ${_railtune} ${_sweep_data} ${_sweep_out}
                   ${_validate} ${_formats}/sweep-manifest.schema.json)
  # The user's own forcing and fault switches would change what the scenarios expect.
  set_tests_properties(cli.sweep_run_${_scenario} PROPERTIES ENVIRONMENT_MODIFICATION
    "NCCL_ALGO=unset:;NCCL_PROTO=unset:;NCCL_DEBUG=unset:;NCCL_DEBUG_SUBSYS=unset:;NCCL_MIN_NCHANNELS=unset:;NCCL_MAX_NCHANNELS=unset:;NCCL_TUNER_PLUGIN=unset:;RAILTUNE_TUNER_CONFIG=unset:;RAILTUNE_FAKE_FAIL_RUNS=unset:;RAILTUNE_FAKE_HANG_RUNS=unset:;PATH=path_list_prepend:${_sweep_data}")
endforeach()
# flood's address-space limit cannot hold under a sanitizer (it reserves terabytes of address space).
if(RAILTUNE_SANITIZED)
  set_property(TEST cli.sweep_run_flood APPEND PROPERTY ENVIRONMENT_MODIFICATION "RAILTUNE_SANITIZED=set:1")
endif()
# --env: a matrix of NCCL's IB settings over the 144-GPU shape, run -> parse (net_env on every row, the published
# x1.70 of adaptive routing with split data) -> rules of one setting -> the winners (--net-env) -> topo env --measured,
# and a resume with another matrix refused; the winners' file held to its schema.
add_test(NAME cli.sweep_run_env_matrix
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/sweep_env_matrix.py ${_railtune} ${_sweep_data} ${_sweep_out}/env_matrix)
set_tests_properties(cli.sweep_run_env_matrix PROPERTIES TIMEOUT 120 FIXTURES_SETUP sweep_env_matrix ENVIRONMENT_MODIFICATION
  "NCCL_ALGO=unset:;NCCL_PROTO=unset:;NCCL_DEBUG=unset:;NCCL_DEBUG_SUBSYS=unset:;NCCL_MIN_NCHANNELS=unset:;NCCL_MAX_NCHANNELS=unset:;NCCL_TUNER_PLUGIN=unset:;RAILTUNE_TUNER_CONFIG=unset:;RAILTUNE_FAKE_FAIL_RUNS=unset:;RAILTUNE_FAKE_HANG_RUNS=unset:;NCCL_IB_ADAPTIVE_ROUTING=unset:;NCCL_IB_SPLIT_DATA_ON_QPS=unset:;NCCL_IB_QPS_PER_CONNECTION=unset:;NCCL_IB_AR_THRESHOLD=unset:")
add_test(NAME cli.sweep_run_env_matrix_manifest_schema
         COMMAND ${_validate} ${_formats}/sweep-manifest.schema.json ${_sweep_out}/env_matrix/run/manifest.jsonl
                 --min-records 4)
add_test(NAME cli.sweep_run_env_matrix_dataset_schema
         COMMAND ${_validate} ${_formats}/sweep-dataset.schema.json ${_sweep_out}/env_matrix/run/dataset.jsonl
                 --min-records 24)
add_test(NAME cli.sweep_run_env_matrix_net_env_schema
         COMMAND ${_validate} ${_formats}/net-env.schema.json ${_sweep_out}/env_matrix/net-env.json --document)
set_tests_properties(cli.sweep_run_env_matrix_manifest_schema cli.sweep_run_env_matrix_dataset_schema
                     cli.sweep_run_env_matrix_net_env_schema PROPERTIES FIXTURES_REQUIRED sweep_env_matrix)
# The stand-in itself answers as NCCL 2.28 and nccl-tests do when a forced choice is refused.
add_test(NAME cli.sweep_run_standin_rejects
         COMMAND ${_expect} 3 "enqueue.cc:1859 NCCL WARN Error : no algorithm/protocol available for function AllReduce"
                 "Test NCCL failure common.cu:619 'invalid usage \\(run with NCCL_DEBUG=WARN for details\\) / Error"
                 " \\.\\. gb300-r01-t02 pid [0-9]+: Test failure common.cu:1454" -- ${_sweep_standin} -b 1M -e 4M -f 2 -g 8)
set_tests_properties(cli.sweep_run_standin_rejects PROPERTIES ENVIRONMENT "NCCL_ALGO=NVLS;NCCL_PROTO=LL")

# Usage errors: exit 2, a message naming what is wrong; nothing run.
add_test(NAME cli.sweep_run_missing_binary
         COMMAND ${_expect} 2 "railtune sweep run: no-such_all_reduce_perf: not found in PATH" --
                 ${_railtune} sweep run -o ${_sweep_out}/missing -- no-such_all_reduce_perf -g 8)
add_test(NAME cli.sweep_run_output_not_a_folder
         COMMAND ${_expect} 2 "-o /dev/null exists and is not a folder" --
                 ${_railtune} sweep run -o /dev/null -- ${_sweep_standin} -g 8)
add_test(NAME cli.sweep_run_bad_algorithm
         COMMAND ${_expect} 2 "--algos: unknown algorithm 'rign'" --
                 ${_railtune} sweep run -o ${_sweep_out}/bad --algos rign -- ${_sweep_standin} -g 8)
add_test(NAME cli.sweep_run_bad_chunk_size
         COMMAND ${_expect} 2 "--chunk-sizes: '12Q' is not a size" --
                 ${_railtune} sweep run -o ${_sweep_out}/bad --chunk-sizes 12Q -- ${_sweep_standin} -g 8)
add_test(NAME cli.sweep_run_chunk_needs_a_choice
         COMMAND ${_expect} 2 "--chunk-sizes needs a forced algorithm and protocol" --
                 ${_railtune} sweep run --dry-run -o ${_sweep_out}/bad --algos ring --protos any --chunk-sizes 512K
                 -- ${_sweep_standin} -g 8)
add_test(NAME cli.sweep_run_own_json_file
         COMMAND ${_expect} 2 "-J: the sweep gives each run its own -J file" --
                 ${_railtune} sweep run -o ${_sweep_out}/bad -- ${_sweep_standin} -g 8 -J x.json)
add_test(NAME cli.sweep_run_bad_launcher
         COMMAND ${_expect} 2 "--launcher: a ' is not closed" --
                 ${_railtune} sweep run -o ${_sweep_out}/bad --launcher "srun 'x" -- ${_sweep_standin} -g 8)
add_test(NAME cli.sweep_run_unknown_test
         COMMAND ${_expect} 2 "cannot tell the nccl-tests program from the name; pass --test all_reduce_perf" --
                 ${_railtune} sweep run -o ${_sweep_out}/bad -- ${_sweep_data}/render_tables.py)
add_test(NAME cli.sweep_run_bad_json_value
         COMMAND ${_expect} 2 "--json: maybe not in \\{auto,on,off\\}|--json.*maybe" --
                 ${_railtune} sweep run -o ${_sweep_out}/bad --json maybe -- ${_sweep_standin} -g 8)
add_test(NAME cli.sweep_run_env_forced_variable
         COMMAND ${_expect} 2 "railtune sweep run: --env NCCL_PROTO=LL,Simple: NCCL_PROTO: the sweep forces it per run \\(--protos\\)" --
                 ${_railtune} sweep run --dry-run -o ${_sweep_out}/bad --env NCCL_PROTO=LL,Simple -- ${_sweep_standin} -g 8)
add_test(NAME cli.sweep_run_env_over_the_cap
         COMMAND ${_expect} 2 "railtune sweep run: --env: the matrix has more than 64 combinations" --
                 ${_railtune} sweep run --dry-run -o ${_sweep_out}/bad --env NCCL_IB_QPS_PER_CONNECTION=1,2,4,8,16
                 --env NCCL_IB_AR_THRESHOLD=0,1,2,3 --env NCCL_CROSS_NIC=0,1,2,3 -- ${_sweep_standin} -g 8)
add_test(NAME cli.format_golden_sweep_manifest
         COMMAND ${_validate} ${_formats}/sweep-manifest.schema.json ${_formats}/sweep-manifest.example.jsonl --min-records 5)
add_test(NAME cli.format_golden_sweep_manifest_env
         COMMAND ${_validate} ${_formats}/sweep-manifest.schema.json ${_formats}/sweep-manifest-env.example.jsonl --min-records 5)
add_test(NAME cli.format_golden_sweep_running
         COMMAND ${_validate} ${_formats}/sweep-running.schema.json ${_formats}/sweep-running.example.json --min-records 1)

# nccl-tests' -R/-D/-x (nccl-tests-integration/run/call_options.h): -D without -R 2 is refused before any run, and a
# binary whose -h does not offer symmetric registration (an nccl-tests 2.15 stand-in) is refused with the release
# that added it, before any run.
add_test(NAME cli.sweep_run_device_impl_needs_symmetric
         COMMAND ${_expect} 2 "^railtune sweep run: -D 1 needs -R 2"
                 -- ${_railtune} sweep run --dry-run -o ${_sweep_out}/call-d -- ${_sweep_standin} -D 1)
add_test(NAME cli.sweep_run_symmetric_needs_nccl_tests_216
         COMMAND ${_expect} 2 "-R 2: this nccl-tests offers no symmetric registration \\(nccl-tests 2.16.0 added it\\)"
                 -- ${_railtune} sweep run -o ${_sweep_out}/call-r -- ${_sweep_data}/old_all_reduce_perf -R 2)
add_test(NAME cli.sweep_run_symmetric_dry_run_note
         COMMAND ${_expect} ok "-R 2: with symmetric windows NCCL may run AllReduce, AllGather and ReduceScatter"
                 -- ${_railtune} sweep run --dry-run -o ${_sweep_out}/call-dry -- ${_sweep_standin} -R 2)
