# `railtune sweep parse|rules|compare` as a user runs them (docs/sweep.md): the whole loop on the stand-in
# nccl-tests binary's recorded GB300 tables (sweep_loop.py: run -> parse -> rules -> tuner decisions -> compare
# --model, each size's pick checked against the tables; then run --env -> rules --net-env -> topo env/rail-map
# --measured, and fit -> tuner decisions --model-file with that rail map), the report opened in headless Chromium,
# the published samples of the shared data folder, and the errors a user can make.
set(_sweep_work ${CMAKE_CURRENT_BINARY_DIR}/sweep)
set(_sweep_loop ${_sweep_work}/loop)
file(MAKE_DIRECTORY ${_sweep_work})
set(_sweep_env "NCCL_ALGO=unset:;NCCL_PROTO=unset:;NCCL_DEBUG=unset:;NCCL_DEBUG_SUBSYS=unset:;NCCL_MIN_NCHANNELS=unset:;NCCL_MAX_NCHANNELS=unset:;NCCL_TUNER_PLUGIN=unset:;RAILTUNE_TUNER_CONFIG=unset:;NCCL_TUNER_CONFIG_FILE=unset:;RAILTUNE_RAIL_MAP=unset:;RAILTUNE_TUNER_MODEL=unset:;RAILTUNE_FAKE_FAIL_RUNS=unset:;RAILTUNE_FAKE_HANG_RUNS=unset:")

add_test(NAME cli.sweep_loop COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/sweep_loop.py ${_railtune} ${_sweep_loop}
                                     ${PROJECT_SOURCE_DIR}/tests/data/sweep)
set_tests_properties(cli.sweep_loop PROPERTIES TIMEOUT 300 FIXTURES_SETUP sweep_loop ENVIRONMENT_MODIFICATION "${_sweep_env}")
add_test(NAME cli.sweep_compare_browser
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/sweep_compare_browser.py ${_railtune} ${_sweep_work}/browser
                 ${_sweep_loop}/dataset.jsonl ${_sweep_loop}/rules.json)
set_tests_properties(cli.sweep_compare_browser PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 400 FIXTURES_REQUIRED sweep_loop
                     ENVIRONMENT_MODIFICATION "${_sweep_env}")
# `sweep fit` and `compare --fitted` on the loop's dataset: the model file against its schema, the validation
# table, --no-validate, exit statuses 1 and 2 (sweep_fit_cli.py).
add_test(NAME cli.sweep_fit COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/sweep_fit_cli.py ${_railtune} ${_sweep_work}/fit
                                    ${_sweep_loop}/dataset.jsonl ${PROJECT_SOURCE_DIR})
set_tests_properties(cli.sweep_fit PROPERTIES TIMEOUT 600 FIXTURES_REQUIRED sweep_loop
                     ENVIRONMENT_MODIFICATION "${_sweep_env}")
add_test(NAME cli.sweep_dataset_schema_accepts_loop_output
         COMMAND ${_validate} ${_formats}/sweep-dataset.schema.json ${_sweep_loop}/dataset.jsonl --min-records 100)
set_tests_properties(cli.sweep_dataset_schema_accepts_loop_output PROPERTIES FIXTURES_REQUIRED sweep_loop)
add_test(NAME cli.sweep_rules_schema_accepts_loop_output
         COMMAND ${_validate} ${_formats}/tuner-rules.schema.json ${_sweep_loop}/rules.json --document)
set_tests_properties(cli.sweep_rules_schema_accepts_loop_output PROPERTIES FIXTURES_REQUIRED sweep_loop)
add_test(NAME cli.sweep_compare_tuned
         COMMAND ${_expect} ok "tuned GB/s" "measured with the rules loaded" "^wrote .*tuned\\.svg: 1 collective and shape"
                 -- ${_railtune} sweep compare ${_sweep_loop}/g8.jsonl --rules ${_sweep_loop}/rules.json
                    --tuned ${_sweep_loop}/g8-tuned.jsonl -o ${_sweep_work}/tuned.svg)
set_tests_properties(cli.sweep_compare_tuned PROPERTIES FIXTURES_REQUIRED sweep_loop)

function(sweep_expect name)
  add_test(NAME cli.sweep_${name} COMMAND ${_expect} ${ARGN})
  set_tests_properties(cli.sweep_${name} PROPERTIES ENVIRONMENT_MODIFICATION "${_sweep_env}")
endfunction()

# The published samples: every era, fragments, the "144-rank" fragment whose busbw says 128.
if(EXISTS ${RAILTUNE_SHARED_DATA_DIR}/nccl-tests)
  file(GLOB _sweep_samples ${RAILTUNE_SHARED_DATA_DIR}/nccl-tests/*.txt)
  sweep_expect(parse_published_samples ok "^wrote .*samples\\.jsonl: 57 rows from 4 of 4 files \\(6 runs\\)"
               "multirack.*: run 1: busbw/algbw = 1\\.9843[0-9] is all-reduce's 2\\(n-1\\)/n for 128 ranks, but the device lines say 144"
               -- ${_railtune} sweep parse ${_sweep_samples} --nvl-domains 1 -o ${_sweep_work}/samples.jsonl)
else()
  add_test(NAME cli.sweep_parse_published_samples COMMAND ${CMAKE_COMMAND} -E echo
           "SKIP: the shared data folder (${RAILTUNE_SHARED_DATA_DIR}) is absent beside the checkout")
  set_tests_properties(cli.sweep_parse_published_samples PROPERTIES SKIP_REGULAR_EXPRESSION "SKIP:")
endif()

# One output longer than the rows the reading thread writes itself: the dataset lines the second thread
# writes are every row, in order (sweep_parse_long_output.py).
add_test(NAME cli.sweep_parse_long_output
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/sweep_parse_long_output.py ${_railtune} ${_sweep_work}/long
                 ${PROJECT_SOURCE_DIR}/tests/data/sweep/recorded/g8/default.txt)
set_tests_properties(cli.sweep_parse_long_output PROPERTIES TIMEOUT 300 ENVIRONMENT_MODIFICATION "${_sweep_env}")

# What a user gets wrong.
file(WRITE ${_sweep_work}/not-a-table.txt "hello\nthis is not nccl-tests output\n")
file(WRITE ${_sweep_work}/not-a-dataset.jsonl "{\"schema\":\"railtune.path_log.v1\"}\nnot json\n")
file(MAKE_DIRECTORY ${_sweep_work}/empty)
sweep_expect(parse_no_rows 1 "not-a-table\\.txt: no nccl-tests result rows" "^railtune sweep parse: no nccl-tests result rows in the inputs"
             "^nothing written: 0 rows"
             -- ${_railtune} sweep parse ${_sweep_work}/not-a-table.txt -o ${_sweep_work}/none.jsonl)
sweep_expect(parse_empty_folder 2 "^railtune sweep parse: no nccl-tests output files among the inputs"
             -- ${_railtune} sweep parse ${_sweep_work}/empty -o ${_sweep_work}/none.jsonl)
sweep_expect(parse_bad_env 2 "^railtune sweep parse: --env NCCL_ALGO: expected KEY=VALUE"
             -- ${_railtune} sweep parse --env NCCL_ALGO ${_sweep_work}/not-a-table.txt -o ${_sweep_work}/none.jsonl)
sweep_expect(parse_output_is_a_folder 2 "^railtune sweep parse: cannot write .*empty: it exists and is not a regular file"
             -- ${_railtune} sweep parse ${PROJECT_SOURCE_DIR}/tests/data/sweep/recorded/g8/default.txt -o ${_sweep_work}/empty)
sweep_expect(parse_env_per_file ok "^wrote .*: 22 rows from 2 of 2 files"
             -- ${_railtune} sweep parse ${PROJECT_SOURCE_DIR}/tests/data/sweep/recorded/g8/default.txt
                --env NCCL_ALGO=Ring --env NCCL_PROTO=LL128 ${PROJECT_SOURCE_DIR}/tests/data/sweep/recorded/g8/ring-ll128.txt
                -o ${_sweep_work}/env.jsonl)
sweep_expect(rules_from_env_per_file ok "ring/ll128 +\\+41\\.9 % > --min-gain 5\\.0 %" "^wrote .*env-rules\\.json: 1 rule from 22 rows"
             -- ${_railtune} sweep rules ${_sweep_work}/env.jsonl -o ${_sweep_work}/env-rules.json)
set_tests_properties(cli.sweep_rules_from_env_per_file PROPERTIES DEPENDS cli.sweep_parse_env_per_file)
sweep_expect(rules_nccl_csv ok "^wrote .*env-rules\\.csv: 1 rule"
             -- ${_railtune} sweep rules ${_sweep_work}/env.jsonl -o ${_sweep_work}/env-rules.csv)
set_tests_properties(cli.sweep_rules_nccl_csv PROPERTIES DEPENDS cli.sweep_parse_env_per_file)
sweep_expect(rules_bad_lines fail "not-a-dataset\\.jsonl:1: not a railtune\\.sweep-dataset/1 line; line skipped"
             "not-a-dataset\\.jsonl:2: not a JSON object" "no sweep dataset rows in .*not-a-dataset\\.jsonl"
             -- ${_railtune} sweep rules ${_sweep_work}/not-a-dataset.jsonl -o ${_sweep_work}/none.json)
sweep_expect(rules_bad_min_gain 2 "--min-gain five: expected a percentage"
             -- ${_railtune} sweep rules ${_sweep_work}/not-a-dataset.jsonl --min-gain five -o ${_sweep_work}/none.json)
sweep_expect(rules_dataset_is_a_folder 2 "is actually a directory"
             -- ${_railtune} sweep rules ${_sweep_work}/empty -o ${_sweep_work}/none.json)
sweep_expect(rules_dataset_is_a_fifo fail "cannot read the dataset .*fifo\\.jsonl: not a regular file"
             -- sh -c "rm -f ${_sweep_work}/fifo.jsonl && mkfifo ${_sweep_work}/fifo.jsonl && exec ${_railtune} sweep rules ${_sweep_work}/fifo.jsonl -o ${_sweep_work}/none.json")
sweep_expect(rules_unwritable fail "cannot write /dev/null/rules\\.json"
             -- ${_railtune} sweep rules ${_sweep_work}/env.jsonl -o /dev/null/rules.json)
set_tests_properties(cli.sweep_rules_unwritable PROPERTIES DEPENDS cli.sweep_parse_env_per_file)
sweep_expect(compare_bad_extension fail "cannot tell the format from the extension"
             -- ${_railtune} sweep compare ${_sweep_work}/env.jsonl -o ${_sweep_work}/report.png)
sweep_expect(compare_refused_rules fail "the tuner would refuse .*tuner_decisions_bad_rules\\.csv"
             -- ${_railtune} sweep compare ${_sweep_work}/env.jsonl --rules ${PROJECT_SOURCE_DIR}/tests/cli/tuner_decisions_bad_rules.csv
                -o ${_sweep_work}/report.html)

# `compare --model` on GB200 data (one tray, one run of each choice): a GB300 profile is warned about once, naming
# the profile to pass, and the comparison still ends well; without --profile the data's GPU picks gb200-nvl72.
file(WRITE ${_sweep_work}/gb200.jsonl [=[
{"schema":"railtune.sweep-dataset/1","source":"gb200/allreduce.default.r0.txt","line":40,"run":0,"test":"all_reduce_perf","collective":"allreduce","size":8388608,"count":2097152,"type":"float","redop":"sum","root":-1,"choice":{},"forced_by":"manifest","env":{},"shape":{"ranks":4,"hosts":1,"nodes":1,"nvl_domains":1,"ranks_per_domain":4},"out_of_place":{"time_us":40.0,"algbw":209.7,"busbw":314.6,"wrong":0.0},"in_place":{"time_us":40.2,"algbw":208.7,"busbw":313.0,"wrong":0.0},"valid":true,"repeat":0,"gpu":"NVIDIA GB200"}
{"schema":"railtune.sweep-dataset/1","source":"gb200/allreduce.ring-ll128.r0.txt","line":40,"run":0,"test":"all_reduce_perf","collective":"allreduce","size":8388608,"count":2097152,"type":"float","redop":"sum","root":-1,"choice":{"algorithm":"ring","protocol":"ll128"},"forced_by":"manifest","env":{"NCCL_ALGO":"Ring","NCCL_PROTO":"LL128"},"shape":{"ranks":4,"hosts":1,"nodes":1,"nvl_domains":1,"ranks_per_domain":4},"out_of_place":{"time_us":36.0,"algbw":233.0,"busbw":349.5,"wrong":0.0},"in_place":{"time_us":36.1,"algbw":232.4,"busbw":348.6,"wrong":0.0},"valid":true,"repeat":0,"gpu":"NVIDIA GB200"}
]=])
sweep_expect(compare_model_profile_of_another_gpu ok
             "^railtune: warning: --model: profile gb300-nvl72 models NVIDIA GB300; 1 group is NVIDIA GB200 \\(pass --profile gb200-nvl72\\)$"
             "^model: .*hardware profile gb300-nvl72, emulated NCCL"
             -- ${_railtune} sweep compare ${_sweep_work}/gb200.jsonl --model --profile gb300-nvl72)
sweep_expect(compare_model_profile_from_the_data ok
             "^model: .*hardware profile gb200-nvl72 \\(picked from the data: every group is NVIDIA GB200\\)"
             -- ${_railtune} sweep compare ${_sweep_work}/gb200.jsonl --model)
# One run of each: a --min-gain under the one-run noise is not the bar, and the why says what is.
sweep_expect(rules_one_run_evidence ok "ring/ll128 \\+11\\.2 % > one-run noise 5\\.0 % \\(1 run each\\)"
             "^wrote .*gb200-rules\\.json: 1 rule from 2 rows"
             -- ${_railtune} sweep rules ${_sweep_work}/gb200.jsonl --min-gain 2 -o ${_sweep_work}/gb200-rules.json)

# Hostile input (issue 28; docs/sweep.md#impossible-values): impossible values and a row glued to an INFO line in a
# table, a hand-edited dataset (1e308, 2^63, a negative size, a key twice) for rules and compare, a sweep folder
# whose every run failed, and the memory of a 40 MB parse (streamed, not held).
foreach(_case parse rules compare failed_runs memory)
  add_test(NAME cli.sweep_hostile_${_case}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/sweep_hostile.py ${_railtune} ${_sweep_work}/hostile ${_case})
  set_tests_properties(cli.sweep_hostile_${_case} PROPERTIES TIMEOUT 300 ENVIRONMENT_MODIFICATION "${_sweep_env}")
endforeach()
if(RAILTUNE_SANITIZED)
  set_property(TEST cli.sweep_hostile_memory APPEND PROPERTY ENVIRONMENT_MODIFICATION "RAILTUNE_SANITIZED=set:1")
endif()
add_test(NAME cli.sweep_dataset_schema_accepts_example
         COMMAND ${_validate} ${_formats}/sweep-dataset.schema.json ${_formats}/sweep-dataset.example.jsonl --min-records 4)

# Two clusters of one shape (issue 30): an H100 sweep over a TCPXO net plugin and an H200 InfiniBand sweep, both 16
# ranks on 2 nodes, parsed with NCCL's INFO lines (tests/data/sweep_cluster). They are two groups; one rules file
# cannot hold both (the tuner's key has no GPU or network), so `sweep rules` refuses and --gpu / --fabric picks one.
set(_sweep_cluster ${PROJECT_SOURCE_DIR}/tests/data/sweep_cluster)
sweep_expect(parse_two_clusters ok "^wrote .*two-clusters\\.jsonl: 6 rows from 2 of 2 files"
             -- ${_railtune} sweep parse ${_sweep_cluster}/h100-tcpxo.txt ${_sweep_cluster}/h200-ib.txt
                -o ${_sweep_work}/two-clusters.jsonl)
sweep_expect(rules_refuse_two_clusters 2
             "^railtune sweep rules: rules for NVIDIA H100 80GB HBM3, TCPXO and NVIDIA H200, IB would share the tuner key \"allreduce, 16 ranks, 2 nodes, 2 NVLink domains of 8\": .*pass --gpu NAME or --fabric TRANSPORT"
             -- ${_railtune} sweep rules ${_sweep_work}/two-clusters.jsonl -o ${_sweep_work}/two-clusters-rules.json)
sweep_expect(rules_pick_one_cluster ok "^3 rows of other GPUs or fabrics left out" "^allreduce, 16 ranks, 2 nodes, 2 NVLink domains of 8; NVIDIA H200, IB:"
             -- ${_railtune} sweep rules ${_sweep_work}/two-clusters.jsonl --gpu h200 -o ${_sweep_work}/h200-rules.json)
sweep_expect(rules_pick_by_fabric ok "^3 rows of other GPUs or fabrics left out" "NVIDIA H100 80GB HBM3, TCPXO:"
             -- ${_railtune} sweep rules ${_sweep_work}/two-clusters.jsonl --fabric tcpxo -o ${_sweep_work}/tcpxo-rules.json)
sweep_expect(rules_pick_nothing 2 "^railtune sweep rules: no row of the datasets is of --gpu B200"
             -- ${_railtune} sweep rules ${_sweep_work}/two-clusters.jsonl --gpu B200 -o ${_sweep_work}/none.json)
set_tests_properties(cli.sweep_rules_refuse_two_clusters cli.sweep_rules_pick_one_cluster cli.sweep_rules_pick_by_fabric
                     cli.sweep_rules_pick_nothing PROPERTIES DEPENDS cli.sweep_parse_two_clusters)
add_test(NAME cli.sweep_dataset_schema_accepts_cluster_rows
         COMMAND ${_validate} ${_formats}/sweep-dataset.schema.json ${_sweep_work}/two-clusters.jsonl --min-records 6)
set_tests_properties(cli.sweep_dataset_schema_accepts_cluster_rows PROPERTIES DEPENDS cli.sweep_parse_two_clusters)
sweep_expect(run_rail_map_and_fabric 2 "^railtune sweep run: --rail-map and --fabric: give one of them"
             -- ${_railtune} sweep run --dry-run -o ${_sweep_work}/both --rail-map a.json --fabric b.yaml -- all_reduce_perf)
sweep_expect(run_rail_map_unreadable 2 "^railtune sweep run: .*no-such-map\\.json"
             -- ${_railtune} sweep run --dry-run -o ${_sweep_work}/nomap --rail-map ${_sweep_work}/no-such-map.json -- all_reduce_perf)
# The probe run and a recorded rail map, end to end (sweep_probe.sh).
add_test(NAME cli.sweep_probe_and_rail_map
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/sweep_probe.sh ${_railtune} ${_sweep_cluster} ${_sweep_work}/probe
                 ${_validate} ${_formats}/sweep-manifest.schema.json)
set_tests_properties(cli.sweep_probe_and_rail_map PROPERTIES TIMEOUT 120 ENVIRONMENT_MODIFICATION "${_sweep_env}")
# Two trays of GB300 parsed without MNNVL information (env.jsonl above): rules and compare repeat the warning for
# the group, with how to fix it.
foreach(_step rules compare)
  set(_out ${_sweep_work}/nvl72-${_step}.json)
  if(_step STREQUAL compare)
    set(_out ${_sweep_work}/nvl72-compare.txt)
  endif()
  sweep_expect(${_step}_repeats_the_nvl72_warning ok
               "^railtune: warning: allreduce, 8 ranks, 2 nodes, 2 NVLink domains of 4: 2 hosts of 4 NVIDIA GB300 GPUs counted as 2 nodes.*parse with --nvl-domains N, --rail-map FILE or --fabric FILE, or rerun with NCCL_DEBUG=INFO"
               -- ${_railtune} sweep ${_step} ${_sweep_work}/env.jsonl -o ${_out})
  set_tests_properties(cli.sweep_${_step}_repeats_the_nvl72_warning PROPERTIES DEPENDS cli.sweep_parse_env_per_file)
endforeach()

# nccl-tests' -R/-D/-x (dataset/call_mode.h): a text output has no args, so --nccl-tests-args says them; every row then
# carries "call", valid for the schema. On one NCCL node (--nvl-domains 1: one NVL72 rack) -R 2 AllReduce rows may be
# NCCL's symmetric kernels, so `sweep rules` leaves them all out, counts them and refuses a dataset of nothing else;
# on two nodes NCCL has no symmetric support and the same rows are used.
set(_sweep_g8_default ${PROJECT_SOURCE_DIR}/tests/data/sweep/recorded/g8/default.txt)
sweep_expect(parse_call_symmetric ok "^wrote .*call-sym\\.jsonl: 11 rows"
             -- ${_railtune} sweep parse ${_sweep_g8_default} --nvl-domains 1 --nccl-tests-args "-R 2"
             -o ${_sweep_work}/call-sym.jsonl)
add_test(NAME cli.sweep_dataset_schema_accepts_call
         COMMAND ${_validate} ${_formats}/sweep-dataset.schema.json ${_sweep_work}/call-sym.jsonl --min-records 11)
sweep_expect(rules_refuse_untuned_rows 2
             "11 rows NCCL may have run without the tuner left out \\(11 with symmetric windows, -R 2"
             "sweep again without -R 2 and -D for the tuner's rules"
             -- ${_railtune} sweep rules ${_sweep_work}/call-sym.jsonl -o ${_sweep_work}/call-sym-rules.json)
sweep_expect(parse_call_two_nodes ok "^wrote .*call-two\\.jsonl: 11 rows"
             -- ${_railtune} sweep parse ${_sweep_g8_default} --nccl-tests-args "-R 2" -o ${_sweep_work}/call-two.jsonl)
sweep_expect(rules_keep_symmetric_rows_across_nodes ok "^wrote .*call-two-rules\\.json: 0 rules from 11 rows"
             -- ${_railtune} sweep rules ${_sweep_work}/call-two.jsonl -o ${_sweep_work}/call-two-rules.json)
set_tests_properties(cli.sweep_dataset_schema_accepts_call cli.sweep_rules_refuse_untuned_rows PROPERTIES
                     DEPENDS cli.sweep_parse_call_symmetric)
set_tests_properties(cli.sweep_rules_keep_symmetric_rows_across_nodes PROPERTIES DEPENDS cli.sweep_parse_call_two_nodes)
sweep_expect(parse_call_bad 2 "^railtune sweep parse: --nccl-tests-args: -D 1 needs -R 2"
             -- ${_railtune} sweep parse ${_sweep_g8_default} --nccl-tests-args "-D 1" -o ${_sweep_work}/call-bad.jsonl)
