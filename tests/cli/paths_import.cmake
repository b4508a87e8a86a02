# `railtune paths import` and `paths check` on NCCL INFO logs (docs/paths.md, "Paths of any NCCL job"): each test
# case of tests/data/nccl_logs against its golden output (RAILTUNE_UPDATE_GOLDEN=1 ctest -R paths_import_golden
# rewrites them), the real logs of the shared data folder, the check reading NCCL logs directly, bad input, and
# `railtune exec --capture`.
set(_import_data ${PROJECT_SOURCE_DIR}/tests/data/nccl_logs)
set(_import_golden ${PROJECT_SOURCE_DIR}/tests/data/golden/nccl_import)
set(_import_out ${CMAKE_CURRENT_BINARY_DIR}/paths_import)
set(_import_script ${CMAKE_CURRENT_SOURCE_DIR}/paths_import_golden.sh)
set(_import_schema ${_formats}/path-log.schema.json)

add_test(NAME cli.paths_import_golden_v2_12_interleaved
         COMMAND ${_import_script} ${_railtune} ${_validate} ${_import_schema} ${_import_data}/v2_12_interleaved
                 ${_import_golden}/v2_12_interleaved ${_import_out}/v2_12 --rail-map ${_import_data}/rail-map.json)
add_test(NAME cli.paths_import_golden_v2_21_per_process
         COMMAND ${_import_script} ${_railtune} ${_validate} ${_import_schema} ${_import_data}/v2_21_per_process
                 ${_import_golden}/v2_21_per_process ${_import_out}/v2_21 --rail-map ${_import_data}/rail-map.json
                 --job train-7)
# No rail map: rails from 2.30's device lists.
add_test(NAME cli.paths_import_golden_v2_30_rails
         COMMAND ${_import_script} ${_railtune} ${_validate} ${_import_schema} ${_import_data}/v2_30_rails
                 ${_import_golden}/v2_30_rails ${_import_out}/v2_30)
set_tests_properties(cli.paths_import_golden_v2_30_rails PROPERTIES ENVIRONMENT_MODIFICATION "RAILTUNE_RAIL_MAP=unset:")

# The check reads NCCL logs directly, says where each connection came from, and finds the cross-rail sends.
add_test(NAME cli.paths_check_nccl_logs
         COMMAND ${_expect} 1 "4 connections \\(4 from NCCL's logs, 0 from railtune's net plugin\\)"
                 "cross-rail: rank 3 on node-b GPU 1 \\(rail 1\\) sends through mlx5_0 \\(rail 0\\)"
                 "job.log:29: unreadable Channel line" --
                 ${_railtune} paths check ${_import_data}/v2_12_interleaved --rail-map ${_import_data}/rail-map.json)
add_test(NAME cli.paths_check_nccl_logs_json
         COMMAND ${_paths_json} ${_railtune} ${PROJECT_SOURCE_DIR}/tests/support/validate_schema.py ${_paths_schema}
                 ${CMAKE_CURRENT_BINARY_DIR}/paths_import_check.json 1 ${_import_data}/v2_21_per_process
                 --rail-map ${_import_data}/rail-map.json)
add_test(NAME cli.paths_render_nccl_logs
         COMMAND ${_expect} ok "3 connections \\(3 from NCCL's logs\\)" --
                 ${_railtune} paths render ${_import_data}/v2_30_rails -o ${CMAKE_CURRENT_BINARY_DIR}/paths_import.svg)
# The picture says it too: the page's text, and each imported link's details and data-source.
add_test(NAME cli.paths_render_nccl_logs_html
         COMMAND bash -c "\"$0\" paths render \"$1\" -o \"$2\" >/dev/null && grep -c 'data-source=\"nccl-log\"' \"$2\" | grep -x 3 && grep -q \"3 of the 3 connections were rebuilt from NCCL\" \"$2\" && grep -q \"from NCCL.....s log: .*node-a.7001.nccl.log:5\" \"$2\""
                 ${_railtune} ${_import_data}/v2_30_rails ${CMAKE_CURRENT_BINARY_DIR}/paths_import.html)

# The profiler's network summary beside the NCCL logs (as exec --capture writes them) gives bytes: to the check
# directly, and to the import with --profile-dir. A collective's flows go to connIndex 0, a Send's to connIndex 1.
add_test(NAME cli.paths_check_nccl_logs_with_profile
         COMMAND ${_expect} ok "^  0 +- +2 +1.0 MiB" "^  1 +- +1 +4.0 KiB" "node-a +mlx5_1 +1 +- +1 +4.0 KiB" --
                 ${_railtune} paths check ${_import_data}/v2_30_with_profile)
add_test(NAME cli.paths_import_profile_dir
         COMMAND ${_expect} ok "profile join: 3 flows from 1 files, 3 joined to 3 connections, 0 unmatched" --
                 ${_railtune} paths import ${_import_data}/v2_30_with_profile -o ${_import_out}/with_profile
                 --profile-dir ${_import_data}/v2_30_with_profile)
set_tests_properties(cli.paths_check_nccl_logs_with_profile cli.paths_import_profile_dir
                     PROPERTIES ENVIRONMENT_MODIFICATION "RAILTUNE_RAIL_MAP=unset:")

# The real logs (SOURCES.md in the shared folder names each); skipped where the folder is absent.
set(_real ${RAILTUNE_SHARED_DATA_DIR}/nccl-logs)
function(import_real name file)
  add_test(NAME cli.paths_import_real_${name}
           COMMAND bash -c "f=$1; shift; [ -f \"$f\" ] || { echo \"skip: $f is absent\"; exit 77; }; exec \"$@\""
                   _ ${_real}/${file} ${_expect} ok ${ARGN} -- ${_railtune} paths import ${_real}/${file}
                   -o ${_import_out}/real_${name})
  set_tests_properties(cli.paths_import_real_${name} PROPERTIES SKIP_RETURN_CODE 77)
endfunction()
import_real(aws_efa_2_9 01-aws-efa-eks-ofi-2.9.9.log "16 processes on 2 hosts, NCCL 2.9.9"
            "network connections: 32 \\(64 connection ends" "peer's own line found: 64 of 64"
            "NET/AWS Libfabric : Using")
import_real(socket_2_11 02-aws-hpc-tutorials-socket-2.11.4.log "network connections: 4 \\(8 connection ends"
            "HCA known: 8 of 8")
import_real(roce_2_27 07-slurmv4-roce-ibhca-2.27.5.log "NCCL 2.27.5" "network connections: 64 " "HCA known: 64 of 64"
            "communicator known: 64 of 64")
import_real(roce_2_29 08-slurmv4-roce-2.29.3.log "NCCL 2.29.3" "network connections: 64 " "HCA known: 64 of 64")

# One connection however many files carry its line: the same log given twice adds nothing, and says so.
add_test(NAME cli.paths_import_same_log_twice
         COMMAND ${_expect} ok "network connections: 3 \\(6 connection ends" "2 processes on 2 hosts"
                 "6 Channel lines read twice \\(counted once\\)" --
                 ${_railtune} paths import ${_import_data}/v2_30_rails ${_import_data}/v2_30_rails -o ${_import_out}/twice)
# A job id with slashes and dots never writes hidden files, nor outside the folder; the count is the files written.
add_test(NAME cli.paths_import_job_never_hidden
         COMMAND bash -c "out=$1/job_dots; rm -rf \"$out\" && \"$0\" paths import \"$2\" -o \"$out\" --job ../../x | grep 'wrote 2 path logs' && [ \"$(ls -A \"$out\" | grep -c '^[^.].*jsonl$')\" = 2 ] && ! ls -A \"$out\" | grep '^\\.' && ! ls \"$1\" | grep x-node"
                 ${_railtune} ${_import_out} ${_import_data}/v2_30_rails)
set_tests_properties(cli.paths_import_same_log_twice cli.paths_import_job_never_hidden
                     PROPERTIES ENVIRONMENT_MODIFICATION "RAILTUNE_RAIL_MAP=unset:")

# Bad input: a message naming what and where, nothing written.
add_test(NAME cli.paths_import_no_nccl_line
         COMMAND ${_expect} 2 "no NCCL log line" "README.md: no NCCL log line in this file" --
                 ${_railtune} paths import ${_import_data}/README.md -o ${_import_out}/none)
add_test(NAME cli.paths_import_output_not_a_folder
         COMMAND ${_expect} 2 "-o /dev/null exists and is not a folder" --
                 ${_railtune} paths import ${_import_data}/v2_30_rails -o /dev/null)
add_test(NAME cli.paths_import_missing_log
         COMMAND ${_expect} 2 "no-such.log: cannot read: no such file or folder" --
                 ${_railtune} paths import ${_import_data}/no-such.log -o ${_import_out}/missing)
add_test(NAME cli.paths_import_device_not_a_log
         COMMAND ${_expect} 2 "/dev/null: not a regular file or a folder" "none of the logs given could be read" --
                 ${_railtune} paths import /dev/null -o ${_import_out}/device)
add_test(NAME cli.paths_import_bad_rail_map
         COMMAND ${_expect} 2 "README.md" -- ${_railtune} paths import ${_import_data}/v2_30_rails -o ${_import_out}/bad
                 --rail-map ${_import_data}/README.md)

# railtune exec --capture: NCCL's logging set for the import, the user's subsystems kept.
add_test(NAME cli.exec_capture
         COMMAND ${_expect} ok "^NCCL_DEBUG=INFO$" "^NCCL_DEBUG_SUBSYS=COLL,INIT,NET,GRAPH$"
                 "^NCCL_DEBUG_FILE=.*/capture/%h.%p.nccl.log$" "^RAILTUNE_PROFILE_DIR=.*/capture$" --
                 ${_railtune} exec --host rack00-tray00 --local-rank 0 --capture ${_import_out}/capture -- env)
set_tests_properties(cli.exec_capture PROPERTIES ENVIRONMENT "NCCL_DEBUG_SUBSYS=COLL;NCCL_DEBUG=WARN"
                     ENVIRONMENT_MODIFICATION "RAILTUNE_PROFILE_DIR=unset:;NCCL_DEBUG_FILE=unset:")
add_test(NAME cli.exec_capture_excluding_subsystems
         COMMAND ${_expect} ok "^NCCL_DEBUG_SUBSYS=\\^COLL$" --
                 ${_railtune} exec --host rack00-tray00 --local-rank 0 --capture ${_import_out}/capture -- env)
set_tests_properties(cli.exec_capture_excluding_subsystems PROPERTIES ENVIRONMENT "NCCL_DEBUG_SUBSYS=^COLL,NET,INIT")
add_test(NAME cli.exec_capture_not_a_folder
         COMMAND ${_expect} 2 "--capture /dev/null" --
                 ${_railtune} exec --host rack00-tray00 --local-rank 0 --capture /dev/null -- env)

# Logs that cannot be read, and a Channel line cut before its arrow (paths_import_bad_files.sh): an unreadable log
# is listed with its reason, not counted as read, and makes the exit status 2; a symlink loop is named as one; a
# cut Channel line is a counted bad line named FILE:LINE; no message names its path twice.
foreach(_case unreadable loop cut)
  add_test(NAME cli.paths_import_bad_files_${_case}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/paths_import_bad_files.sh ${_railtune} ${_import_data}/v2_30_rails
                   ${_import_out}/bad_files_${_case} ${_case})
  set_tests_properties(cli.paths_import_bad_files_${_case} PROPERTIES SKIP_RETURN_CODE 77
                       ENVIRONMENT_MODIFICATION "RAILTUNE_RAIL_MAP=unset:")
endforeach()
