# `railtune paths check` as a user runs it (docs/paths.md): on path logs the real net plugin wrote in
# emulated jobs (clean: exit 0; rank 0 misbound: exit 1 naming rank 0 and mlx5_1), its JSON against
# the schema, damaged input (tests/data/paths/mixed) and each usage error (exit 2). Exit statuses are
# checked exactly (expect.sh with a number): 1 and 2 mean different things.
set(_paths_expect ${CMAKE_CURRENT_SOURCE_DIR}/expect.sh)
set(_paths_json ${CMAKE_CURRENT_SOURCE_DIR}/paths_check_json.sh)
set(_paths_schema ${_formats}/paths-check.schema.json)
set(_paths_out ${CMAKE_CURRENT_BINARY_DIR}/paths_check)
set(_paths_data ${PROJECT_SOURCE_DIR}/tests/data/paths)
set(_paths_job "emu net-job --ranks 16 --racks 2 --collectives all-reduce,tree")  # one string: inside bash -c

# The two emulated jobs (fixtures): a fresh folder each time, so that runs do not mix.
add_test(NAME cli.paths_check_emu_clean_job
         COMMAND bash -c "rm -rf \"$1\" && \"$0\" ${_paths_job} --path-log-dir \"$1\"" ${_railtune} ${_paths_out}/clean)
add_test(NAME cli.paths_check_emu_misbound_job
         COMMAND bash -c "rm -rf \"$1\" && \"$0\" ${_paths_job} --path-log-dir \"$1\" --fault-rank 0 --fault RAILTUNE_NET_FAULT_MISBIND=mlx5_0:mlx5_1"
                 ${_railtune} ${_paths_out}/misbound)
add_test(NAME cli.paths_check_rail_map
         COMMAND bash -c "mkdir -p \"$1/empty\" && \"$0\" topo rail-map --out \"$1/rail-map.json\"" ${_railtune} ${_paths_out})
set_tests_properties(cli.paths_check_emu_clean_job cli.paths_check_emu_misbound_job cli.paths_check_rail_map
                     PROPERTIES FIXTURES_SETUP paths_check_jobs)

set(_paths_tests "")
# A function, not a macro: a macro would re-read the regexes' backslashes.
function(paths_check name status)
  add_test(NAME cli.paths_check_${name} COMMAND ${_paths_expect} ${status} ${ARGN})
  set(_paths_tests ${_paths_tests} cli.paths_check_${name} PARENT_SCOPE)
endfunction()

paths_check(clean 0 "^job net-job: 4 hosts logged, [0-9]+ connections, 0 violations" "every connection stayed on its rail"
            -- ${_railtune} paths check ${_paths_out}/clean)
paths_check(clean_with_rail_map 0 "0 violations" "unused rail: rail [1-3] \\(a rail of the rail map\\)"
            -- ${_railtune} paths check ${_paths_out}/clean --rail-map ${_paths_out}/rail-map.json)
paths_check(misbound 1 "^Violations \\([0-9]+\\):"
            "cross-rail: rank 0 on rack00-tray00 GPU 0 \\(rail 0\\) sends through mlx5_1 \\(rail 1\\) to rank 8 on rack01-tray00 mlx5_0 \\(rail 0\\)"
            -- ${_railtune} paths check ${_paths_out}/misbound)
paths_check(damaged_input 1 "warning: .*mixed/net-job-rack00-tray01-15604.jsonl:2:71: not JSON"
            "warning: .*mixed/net-job-rack01-tray01-15614.jsonl:1:[0-9]+: not JSON"
            "warning: .*mixed/newer/net-job-rack09-tray00-999.jsonl: schema railtune.path_log.v2 is not a path log version"
            "warning: host rack01-tray00 wrote no path log for job other" "^job net-job: 4 hosts logged"
            "^job other: 1 host logged, 1 connection, 0 violations, 1 note"
            "sends through mlx5_1 \\(rail 1\\)"
            -- ${_railtune} paths check ${_paths_data}/mixed)
# ib connections (tests/data/paths/ib, written by hand): the verbs facts of each end, and rank 1's idle QP as a note.
paths_check(ib 0 "^job ib-job: 2 hosts logged, 2 connections, 0 violations, 1 note"
            "^Verbs \\(ib\\) connections, as each end logged them:"
            "rack00-tray00 +1 +send +mlx5_1:1 +InfiniBand AR +4096 +fe80:0000:0000:0000:0c42:a1ff:fe00:b221 \\[0\\] +rack01-tray00 mlx5_1 +0x1c0->0x2d0 0x1c1->0x2d1 0x1c2->0x2d2 0x1c3->0x2d3 +32.0 MiB / 32.0 MiB / 32.0 MiB / 0 B"
            "idle QP: rank 1 on rack00-tray00 mlx5_1 \\(rail 1\\) -> rank 9 on rack01-tray00 mlx5_1 \\(rail 1\\): QP 3 \\(qpn 0x1c3\\) of 4 carried no bytes"
            -- ${_railtune} paths check ${_paths_data}/ib)
# No rail known (an NCCL log that names none, no rail map): "rails unknown" and its own exit status, never a clean pass.
set(_paths_no_rails ${PROJECT_SOURCE_DIR}/tests/data/nccl_logs/v2_12_interleaved)
paths_check(rails_unknown 3 "^job nccl: 2 hosts logged, 4 connections"
            "^  4 connections \\(8 connection ends logged: a connection's sender and receiver each log one\\); rails unknown: 4 connections not checked \\(pass --rail-map\\)$"
            "^rails unknown: 4 connections not checked \\(pass --rail-map\\)\\.$"
            -- ${_railtune} paths check ${_paths_no_rails})
paths_check(rails_unknown_json 3 "^  \"rails_unchecked\": 4," "\"connection_ends\": 8," -- ${_railtune} paths check ${_paths_no_rails} --json)
add_test(NAME cli.paths_check_rails_unknown_is_not_clean
         COMMAND bash -c "! \"$0\" paths check \"$1\" 2>&1 | grep 'every connection stayed on its rail'" ${_railtune} ${_paths_no_rails})
list(APPEND _paths_tests cli.paths_check_rails_unknown_is_not_clean)
paths_check(one_job 0 "^job other: 1 host logged" "missing host: rack01-tray00 wrote no path log"
            -- ${_railtune} paths check ${_paths_data}/mixed --job other)
paths_check(unknown_job 2 "no path log of job nope in .*/mixed \\(expected files named <job>-<host>-<pid>.<start>.jsonl"
            -- ${_railtune} paths check ${_paths_data}/mixed --job nope)
paths_check(empty_folder 2 "no path log in .*/empty \\(expected files named <job>-<host>-<pid>.<start>.jsonl with schema railtune.path_log.v1"
            -- ${_railtune} paths check ${_paths_out}/empty)
paths_check(missing_folder 2 "paths check: .*/no-such-logs: not a folder"
            -- ${_railtune} paths check ${_paths_out}/no-such-logs)
paths_check(no_logdir 2 "LOGDIR is required" -- ${_railtune} paths check)
paths_check(bad_rail_map 2 "paths check: .*README.md" -- ${_railtune} paths check ${_paths_data}/misbound
            --rail-map ${_paths_data}/README.md)
paths_check(bad_rail_map_from_env 2 "paths check: .*README.md" -- ${_railtune} paths check ${_paths_data}/misbound)

add_test(NAME cli.paths_check_json_misbound
         COMMAND ${_paths_json} ${_railtune} ${PROJECT_SOURCE_DIR}/tests/support/validate_schema.py ${_paths_schema}
                 ${_paths_out}/misbound.json 1 ${_paths_out}/misbound)
add_test(NAME cli.paths_check_json_clean
         COMMAND ${_paths_json} ${_railtune} ${PROJECT_SOURCE_DIR}/tests/support/validate_schema.py ${_paths_schema}
                 ${_paths_out}/clean.json 0 ${_paths_out}/clean --rail-map ${_paths_out}/rail-map.json)
add_test(NAME cli.paths_check_json_damaged
         COMMAND ${_paths_json} ${_railtune} ${PROJECT_SOURCE_DIR}/tests/support/validate_schema.py ${_paths_schema}
                 ${_paths_out}/mixed.json 1 ${_paths_data}/mixed)
add_test(NAME cli.paths_check_format_example
         COMMAND ${PROJECT_SOURCE_DIR}/tests/support/validate_schema.py ${_paths_schema} ${_formats}/paths-check.example.json)
add_test(NAME cli.paths_check_json_ib
         COMMAND ${_paths_json} ${_railtune} ${PROJECT_SOURCE_DIR}/tests/support/validate_schema.py ${_paths_schema}
                 ${_paths_out}/ib.json 0 ${_paths_data}/ib)
list(APPEND _paths_tests cli.paths_check_json_ib)
list(APPEND _paths_tests cli.paths_check_json_misbound cli.paths_check_json_clean cli.paths_check_json_damaged)

set_tests_properties(${_paths_tests} PROPERTIES FIXTURES_REQUIRED paths_check_jobs
                     ENVIRONMENT_MODIFICATION "RAILTUNE_RAIL_MAP=unset:")
set_tests_properties(cli.paths_check_bad_rail_map_from_env PROPERTIES ENVIRONMENT_MODIFICATION
                     "RAILTUNE_RAIL_MAP=set:${_paths_data}/README.md")

# What a folder can hold besides logs, and a killed job: the misbound logs without their close records
# (killed/), and a folder holding only a symbolic link to them beside a FIFO and a link to /dev/zero
# (linked/): the FIFO must not block the command, and each is named once.
set(_paths_input ${CMAKE_CURRENT_BINARY_DIR}/paths_input)
add_test(NAME cli.paths_check_input_setup
         COMMAND bash -c "rm -rf \"$1\" && mkdir -p \"$1/killed\" \"$1/linked\" && for f in \"$0\"/*.jsonl; do grep -v '\"record\":\"close\"' \"$f\" >\"$1/killed/$(basename \"$f\")\"; done && ln -s \"$0\" \"$1/linked/logs\" && mkfifo \"$1/linked/pipe.jsonl\" && ln -s /dev/zero \"$1/linked/zero.jsonl\""
                 ${_paths_data}/misbound ${_paths_input})
set_tests_properties(cli.paths_check_input_setup PROPERTIES FIXTURES_SETUP paths_check_input)
add_test(NAME cli.paths_check_killed_job
         COMMAND ${_paths_expect} 1
                 "never closed: pid 15600 on rack00-tray00 left 3 of its 3 connection ends without a close record \\(first at .*killed/net-job-rack00-tray00-15600.jsonl:[0-9]+\\); last heard of at 20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]T"
                 "killed, or still running when the logs were collected"
                 -- ${_railtune} paths check ${_paths_input}/killed)
add_test(NAME cli.paths_check_json_killed
         COMMAND ${_paths_json} ${_railtune} ${PROJECT_SOURCE_DIR}/tests/support/validate_schema.py ${_paths_schema}
                 ${_paths_input}/killed.json 1 ${_paths_input}/killed)
add_test(NAME cli.paths_check_json_killed_unclosed
         COMMAND ${_paths_expect} 1 "\"kind\": \"never_closed\"" "\"open_connections\": 3," "\"last_heard_us\": [0-9]{16}"
                 -- ${_railtune} paths check ${_paths_input}/killed --json)
add_test(NAME cli.paths_check_linked_folder
         COMMAND ${_paths_expect} 1 "^job net-job: 4 hosts logged, 4 connections, 3 violations, 2 notes"
                 "warning: .*linked/pipe.jsonl: a FIFO, not a log file; skipped"
                 "warning: .*linked/zero.jsonl: a character device \\(through a symbolic link\\), not a log file; skipped"
                 -- ${_railtune} paths check ${_paths_input}/linked)
set_tests_properties(cli.paths_check_killed_job cli.paths_check_json_killed cli.paths_check_json_killed_unclosed
                     cli.paths_check_linked_folder
                     PROPERTIES FIXTURES_REQUIRED paths_check_input ENVIRONMENT_MODIFICATION "RAILTUNE_RAIL_MAP=unset:"
                     TIMEOUT 60)
