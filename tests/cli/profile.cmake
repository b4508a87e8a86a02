# `railtune profile stragglers` and `railtune profile hangs` as a user runs them (cli/profile_*.cc,
# docs/profile-analysis.md): the logs of a real emulated job, the stalled-ring fixture
# (tests/data/profile_analysis/ring-hang/, written by unit.ProfileGolden.RingHangFixtureAndReport), bad
# lines and mixed jobs, and the exit statuses.
if(TARGET railtune_profile_analysis)
  set(_profile_data ${PROJECT_SOURCE_DIR}/tests/data/profile_analysis)
  file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/profile_empty)

  function(profile_expect name)
    add_test(NAME cli.profile_${name} COMMAND ${_expect} ${ARGN})
    set_tests_properties(cli.profile_${name} PROPERTIES ENVIRONMENT_MODIFICATION "RAILTUNE_RAIL_MAP=unset:")
  endfunction()

  add_test(NAME cli.profile_emu_net_job
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/profile_emu.sh ${_railtune} $<TARGET_FILE_DIR:railtune_net_plugin>
                   ${_validate} ${_formats} ${CMAKE_CURRENT_BINARY_DIR}/profile_emu)
  set_tests_properties(cli.profile_emu_net_job PROPERTIES ENVIRONMENT_MODIFICATION "RAILTUNE_RAIL_MAP=unset:" TIMEOUT 120)
  # The issue's case: one rank of an emulated job SIGSTOPped; the stopped rank is named first, not a link.
  add_test(NAME cli.profile_emu_sigstop
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/profile_emu_sigstop.sh ${_railtune}
                   $<TARGET_FILE_DIR:railtune_net_plugin> ${_validate} ${_formats} ${CMAKE_CURRENT_BINARY_DIR}/profile_emu_sigstop)
  set_tests_properties(cli.profile_emu_sigstop PROPERTIES ENVIRONMENT_MODIFICATION "RAILTUNE_RAIL_MAP=unset:" TIMEOUT 120)
  # --transport ib: the verbs transport on the verbs simulator; a user's NCCL_IB_QPS_PER_CONNECTION reaches the
  # ranks (not under qemu: a verbs job there takes minutes).
  if(NOT CMAKE_CROSSCOMPILING_EMULATOR)
    add_test(NAME cli.emu_net_job_ib
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/emu_net_job_ib.sh ${_railtune} $<TARGET_FILE_DIR:railtune_net_plugin>
                     ${PROJECT_SOURCE_DIR}/tests/data/net_job/two-gpu-trays.json ${CMAKE_CURRENT_BINARY_DIR}/emu_net_job_ib)
    set_tests_properties(cli.emu_net_job_ib PROPERTIES ENVIRONMENT_MODIFICATION "RAILTUNE_RAIL_MAP=unset:" TIMEOUT 120)
  endif()
  add_test(NAME cli.emu_net_job_bad_transport
           COMMAND ${_expect} fail "--transport: rdma not in \\{socket,ib\\}" -- ${_railtune} emu net-job --transport rdma)
  add_test(NAME cli.emu_net_job_bad_signal
           COMMAND ${_expect} fail "--signal 'HUP': expected STOP or KILL" -- ${_railtune} emu net-job --signal HUP --signal-rank 1)

  # Every rank alive and waiting: the root cause is the link both of whose ends wait on it.
  profile_expect(hangs_ring fail "^job ring-job: 1 hung collective"
                 "^  root cause: link rank 5 on r000-t01 GPU 1 mlx5_1 rail 1 \\(pid 105\\) -> rank 6 on r000-t01"
                 "suspect link: rank 5 on r000-t01 GPU 1 mlx5_1 rail 1 -> rank 6 on r000-t01"
                 -- ${_railtune} profile hangs ${_profile_data}/ring-hang)
  # The issue's case: rank 3 stuck in AllGather #0 after AllReduce #0 completed everywhere (seq is per
  # collective type), in files without closed_by; exit 1, and rank 6's lost records listed.
  profile_expect(hangs_allgather fail "^job gap-job: 1 hung collective"
                 "^  root cause: rank 3 \\(pid 203, host r001-t00\\) stopped making progress at comm 00000000000000cd AllGather seq 0"
                 "comm 00000000000000cd seq 0 AllGather: 1 stuck, 7 completed, 0 silent"
                 "stuck rank 3 on r001-t00: no hang record; it completed no AllGather"
                 "r001-t01 pid 206: 3 records dropped"
                 -- ${_railtune} profile hangs ${_profile_data}/allgather-hang)
  profile_expect(stragglers_allgather ok "^job gap-job: 8 ranks" "losses reported in the logs: 1" --
                 ${_railtune} profile stragglers ${_profile_data}/allgather-hang)
  foreach(kind stragglers hangs)  # each --json example (a golden file of the unit tests) fits its schema
    add_test(NAME cli.format_golden_profile_${kind}
             COMMAND ${_validate} ${_formats}/profile-${kind}.schema.json ${_formats}/profile-${kind}.example.json
                     --min-records 1)
  endforeach()
  profile_expect(stragglers_bad_lines ok
                 "48213-gb300-r01-t05-4121.collectives.jsonl:2:[0-9]+: not JSON"
                 "48213-gb300-r01-t05-4121.collectives.jsonl:3:[0-9]+: not JSON"
                 "collectives.jsonl:4:1: field 'schema': expected 'railtune.profile.collectives.v1'"
                 "collectives.jsonl:5:1: field 'duration_us': expected 5123.456"
                 "^4 bad lines skipped; the rest was analysed"
                 "^job 48213: 144 ranks" "^job 48999: " "missing ranks 0-2, 4-143"
                 -- ${_railtune} profile stragglers ${_profile_data}/bad-lines)
  # --tag-names: a malformed item is named (exit 2); names appear where a tag does (none in these logs).
  profile_expect(stragglers_bad_tag_names 2 "^railtune profile stragglers: --tag-names: 'x=forward': expected TAG=NAME" --
                 ${_railtune} profile stragglers ${_profile_data}/bad-lines --tag-names 1=a,x=forward)
  profile_expect(hangs_bad_tag_names 2 "^railtune profile hangs: --tag-names: tag 2 named twice" --
                 ${_railtune} profile hangs ${_profile_data}/ring-hang --tag-names 2=a,2=b)
  profile_expect(hangs_tag_names 1 "^job ring-job: 1 hung collective" --
                 ${_railtune} profile hangs ${_profile_data}/ring-hang --tag-names 1=forward)
  profile_expect(stragglers_one_job ok "^job 48999: " -- ${_railtune} profile stragglers ${_profile_data}/bad-lines --job 48999)
  profile_expect(stragglers_unknown_job 2 "^railtune profile stragglers: no records of job 7; the logs hold job\\(s\\) 48213, 48999" --
                 ${_railtune} profile stragglers ${_profile_data}/bad-lines --job 7)
  profile_expect(stragglers_nothing_readable 2 "^railtune profile stragglers: no readable collective records in .*profile_empty" --
                 ${_railtune} profile stragglers ${CMAKE_CURRENT_BINARY_DIR}/profile_empty)
  profile_expect(hangs_nothing_readable 2 "^railtune profile hangs: no readable collective records" --
                 ${_railtune} profile hangs ${CMAKE_CURRENT_BINARY_DIR}/profile_empty)
  profile_expect(stragglers_missing_folder 2 "^railtune profile stragglers: .*/no-such-folder: not a folder" --
                 ${_railtune} profile stragglers ${CMAKE_CURRENT_BINARY_DIR}/no-such-folder)
  profile_expect(stragglers_bad_rail_map 2 "^railtune profile stragglers: .*unknown_key.yaml" --
                 ${_railtune} profile stragglers ${_profile_data}/bad-lines --rail-map ${PROJECT_SOURCE_DIR}/tests/data/fabric/unknown_key.yaml)
  add_test(NAME cli.profile_stragglers_rail_map_from_env
           COMMAND ${_expect} 2 "^railtune profile stragglers: .*no-such-map.json" -- ${_railtune} profile stragglers ${_profile_data}/bad-lines)
  set_tests_properties(cli.profile_stragglers_rail_map_from_env PROPERTIES ENVIRONMENT "RAILTUNE_RAIL_MAP=/nonexistent/no-such-map.json")
endif()
