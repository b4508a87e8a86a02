# `railtune paths synth` as a user runs it (cli/paths/synth.cc, analysis/synth/): the files of a small job fit
# their schemas, seeds reproduce, the truth example is current (RAILTUNE_UPDATE_GOLDEN=1 ctest -R
# '^cli\.paths_synth_truth_example' rewrites it), and bad options get clear messages.
set(_synth_data ${PROJECT_SOURCE_DIR}/tests/data/synth)
add_test(NAME cli.paths_synth_files
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/paths_synth_files.sh ${_railtune} ${_validate}
                 ${PROJECT_SOURCE_DIR}/tests/support/validate_schema.py ${_formats} ${_synth_data}/four-small-racks.yaml
                 ${CMAKE_CURRENT_BINARY_DIR}/paths_synth_files)
add_test(NAME cli.paths_synth_truth_example
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/paths_synth_golden.sh ${_railtune} ${_synth_data}/two-planes.yaml
                 ${_formats}/synth-truth.example.json ${CMAKE_CURRENT_BINARY_DIR}/paths_synth_golden)
add_test(NAME cli.paths_synth_truth_example_schema
         COMMAND ${PROJECT_SOURCE_DIR}/tests/support/validate_schema.py ${_formats}/synth-truth.schema.json
                 ${_formats}/synth-truth.example.json)

function(synth_expect name)
  add_test(NAME cli.paths_synth_${name} COMMAND ${_expect} ${ARGN})
endfunction()
set(_synth_out ${CMAKE_CURRENT_BINARY_DIR}/paths_synth_unused)
synth_expect(too_many_ranks fail "65 ranks need more GPUs than the rail map's 64 \\(16 hosts\\)" --
             ${_railtune} paths synth --ranks 65 --fabric ${_synth_data}/four-small-racks.yaml --out ${_synth_out})
# The default cluster holds 144 GPUs: a larger job is refused with the way to give a larger cluster, and
# the cluster the README names holds the 8,192 ranks of its example (8,208 GPUs), 512 with room to spare.
synth_expect(default_cluster_too_small fail
             "512 ranks need more GPUs than the rail map's 144 \\(36 hosts\\): place the job on a larger cluster with --fabric FILE"
             "bench/data/gb300-114-racks.yaml" -- ${_railtune} paths synth --ranks 512 --out ${_synth_out})
synth_expect(large_cluster_holds_8208 fail "8209 ranks need more GPUs than the rail map's 8208 \\(2052 hosts\\)" --
             ${_railtune} paths synth --ranks 8209 --fabric ${PROJECT_SOURCE_DIR}/bench/data/gb300-114-racks.yaml
             --out ${_synth_out})
set(_synth_512 ${CMAKE_CURRENT_BINARY_DIR}/paths_synth_512)
add_test(NAME cli.paths_synth_512_clean COMMAND ${CMAKE_COMMAND} -E rm -rf ${_synth_512})
synth_expect(large_cluster_512 ok "^job synth-512: 512 ranks on 128 hosts in 8 racks" --
             ${_railtune} paths synth --ranks 512 --fabric ${PROJECT_SOURCE_DIR}/bench/data/gb300-114-racks.yaml
             --collectives 2 --connections-per-rank 2 --out ${_synth_512})
set_tests_properties(cli.paths_synth_512_clean PROPERTIES FIXTURES_SETUP synth_512)
set_tests_properties(cli.paths_synth_large_cluster_512 PROPERTIES FIXTURES_REQUIRED synth_512)
synth_expect(odd_connections fail "--connections-per-rank 31: expected an even number" --
             ${_railtune} paths synth --ranks 16 --connections-per-rank 31 --out ${_synth_out})
synth_expect(one_rack_slow fail "--slow-racks 1: the job has 1 racks outside the other offenders" --
             ${_railtune} paths synth --ranks 64 --out ${_synth_out})
synth_expect(fabric_and_rail_map fail "--rail-map excludes --fabric|--fabric excludes --rail-map" --
             ${_railtune} paths synth --ranks 16 --fabric a.yaml --rail-map b.json --out ${_synth_out})
synth_expect(bad_rail_map fail "no-such-map.json" --
             ${_railtune} paths synth --ranks 16 --rail-map ${_synth_data}/no-such-map.json --out ${_synth_out})
synth_expect(out_not_empty fail "--out .*synth is not empty" --
             ${_railtune} paths synth --ranks 16 --slow-racks 0 --cross-rail 0 --out ${_synth_data})
set(_synth_one_node ${CMAKE_CURRENT_BINARY_DIR}/paths_synth_one_node)
add_test(NAME cli.paths_synth_one_node_clean COMMAND ${CMAKE_COMMAND} -E rm -rf ${_synth_one_node})
synth_expect(one_node_note ok "every rank is in one NCCL node, so no connection uses the network" "^wrote 8 files" --
             ${_railtune} paths synth --ranks 8 --slow-racks 0 --slow-trays 0 --stragglers 1 --cross-rail 0
             --collectives 3 --out ${_synth_one_node})
set_tests_properties(cli.paths_synth_one_node_clean PROPERTIES FIXTURES_SETUP synth_one_node)
set_tests_properties(cli.paths_synth_one_node_note PROPERTIES FIXTURES_REQUIRED synth_one_node)
# Named offenders and silent ranks (--late, --silent-ranks): the analysis finds exactly those.
add_test(NAME cli.paths_synth_late_found
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/paths_synth_late.sh ${_railtune} ${CMAKE_CURRENT_BINARY_DIR}/paths_synth_late)
synth_expect(late_bad_level fail "--late slow:1:1500: the level is rank, tray or rack \\(expected LEVEL:INDEX:DELAY_US" --
             ${_railtune} paths synth --ranks 16 --late slow:1:1500 --out ${_synth_out})
synth_expect(late_not_a_number fail "--late rank:x:1500: a field is not a number" --
             ${_railtune} paths synth --ranks 16 --late rank:x:1500 --out ${_synth_out})
synth_expect(late_index_out_of_range fail "--late rank:99: the job has 16 ranks, numbered from 0" --
             ${_railtune} paths synth --ranks 16 --late rank:99:1500 --out ${_synth_out})
synth_expect(late_overlap fail "--late rank:1: rank 1 is already another offender's" --
             ${_railtune} paths synth --ranks 16 --late tray:0:1200 --late rank:1:1500 --out ${_synth_out})
synth_expect(silent_rank_out_of_range fail "--silent-ranks 16: the job's ranks are 0..15" --
             ${_railtune} paths synth --ranks 16 --silent-ranks 16 --out ${_synth_out})
