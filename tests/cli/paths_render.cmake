# `railtune paths render` as a user runs it (cli/paths/render.cc, docs/paths.md, "railtune paths render"): the golden
# path-log example rendered in each format, the errors a user can make, and the page opened in headless
# Chromium (tests/cli/paths_render_browser.py; exit 77 = skipped when chromium is absent).
if(TARGET railtune_paths_render)
  set(_render_logs ${CMAKE_CURRENT_BINARY_DIR}/paths_render_example)  # a folder holding only the example
  file(COPY ${PROJECT_SOURCE_DIR}/docs/formats/path-log.example.jsonl DESTINATION ${_render_logs})
  # Two jobs in one folder (the example, and the same records as job 48214), and a log with a cut line.
  file(READ ${PROJECT_SOURCE_DIR}/docs/formats/path-log.example.jsonl _render_example)
  string(REPLACE "\"job\":\"48213\"" "\"job\":\"48214\"" _render_other "${_render_example}")
  set(_render_two ${CMAKE_CURRENT_BINARY_DIR}/paths_render_two_jobs)
  file(WRITE ${_render_two}/48213-gb300-r01-t05-4121.jsonl "${_render_example}")
  file(WRITE ${_render_two}/48214-gb300-r01-t05-4121.jsonl "${_render_other}")
  string(SUBSTRING "${_render_example}" 0 150 _render_cut)  # line 10: the first record, cut
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/paths_render_cut/48213-gb300-r01-t05-4121.jsonl "${_render_example}${_render_cut}\n")
  set(_render_out ${CMAKE_CURRENT_BINARY_DIR}/paths_render_out)
  file(MAKE_DIRECTORY ${_render_out})
  file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/paths_render_empty)

  function(paths_render_expect name)
    add_test(NAME cli.paths_render_${name} COMMAND ${_expect} ${ARGN})
    set_tests_properties(cli.paths_render_${name} PROPERTIES ENVIRONMENT_MODIFICATION "RAILTUNE_RAIL_MAP=unset:")
  endfunction()

  foreach(ext html svg dot)
    paths_render_expect(example_${ext} ok "^wrote .*example\\.${ext}: job 48213: 1 host logged, 4 connections, 4 connection ends, 2 violations$" --
                        ${_railtune} paths render ${_render_logs} -o ${_render_out}/example.${ext})
  endforeach()
  # No rail known: the command's line and the picture's heading say so (the same words as `paths check`).
  paths_render_expect(rails_unknown ok
                      "^wrote .*rails-unknown\\.svg: job nccl: 2 hosts logged, 4 connections \\(4 from NCCL's logs\\), 8 connection ends, 0 violations; rails unknown: 4 connections not checked \\(pass --rail-map\\)$"
                      "<title>railtune paths: job nccl: .*rails unknown: 4 connections not checked" --
                      bash -c "\"$0\" paths render \"$1\" -o \"$2\" && cat \"$2\""
                      ${_railtune} ${PROJECT_SOURCE_DIR}/tests/data/nccl_logs/v2_12_interleaved ${_render_out}/rails-unknown.svg)
  paths_render_expect(format_overrides_extension ok "^wrote .*example\\.txt" --
                      ${_railtune} paths render ${_render_logs} --format dot -o ${_render_out}/example.txt)
  paths_render_expect(aggregated ok "\\(aggregated by rack\\)" --
                      ${_railtune} paths render ${_render_logs} --max-hosts 1 -o ${_render_out}/racks.svg)
  paths_render_expect(unknown_extension fail "cannot tell the format from the extension" --
                      ${_railtune} paths render ${_render_logs} -o ${_render_out}/example.png)
  paths_render_expect(bad_format fail "--format png: expected html, svg or dot" --
                      ${_railtune} paths render ${_render_logs} --format png -o ${_render_out}/example.png)
  paths_render_expect(no_logs fail "no path logs in .*paths_render_empty" --
                      ${_railtune} paths render ${CMAKE_CURRENT_BINARY_DIR}/paths_render_empty -o ${_render_out}/none.svg)
  paths_render_expect(other_job fail "no path logs of job 7 in" --
                      ${_railtune} paths render ${_render_logs} --job 7 -o ${_render_out}/none.svg)
  paths_render_expect(two_jobs fail "holds the path logs of 2 jobs \\(48213, 48214\\): choose one with --job" --
                      ${_railtune} paths render ${_render_two} -o ${_render_out}/two.svg)
  paths_render_expect(two_jobs_choose_one ok "^wrote .*: job 48214: 1 host logged" --
                      ${_railtune} paths render ${_render_two} --job 48214 -o ${_render_out}/two.svg)
  paths_render_expect(cut_line ok "warning: .*48213-gb300-r01-t05-4121\\.jsonl:10:[0-9]+: " "^wrote .*: job 48213" --
                      ${_railtune} paths render ${CMAKE_CURRENT_BINARY_DIR}/paths_render_cut -o ${_render_out}/cut.svg)
  paths_render_expect(missing_rail_map fail "railtune paths render: .*no-such-map\\.json" --
                      ${_railtune} paths render ${_render_logs} --rail-map ${_render_out}/no-such-map.json -o ${_render_out}/x.svg)
  paths_render_expect(unwritable_output fail "cannot write /dev/null/x\\.html" --
                      ${_railtune} paths render ${_render_logs} -o /dev/null/x.html)

  # ib connections (tests/data/paths/ib): each format carries the drawn record's verbs facts in the link's details.
  set(_render_ib ${PROJECT_SOURCE_DIR}/tests/data/paths/ib)
  paths_render_expect(ib_svg ok "^wrote .*ib\\.svg: job ib-job: 2 hosts logged, 2 connections, 4 connection ends"
                      "^verbs: mlx5_0:1 InfiniBand, MTU 4096, GID fe80:0000:0000:0000:0c42:a1ff:fe00:b220 \\(index 0\\), 2 QPs 0x1a2-&gt;0x2b4 0x1a3-&gt;0x2b5, bytes per QP 128\\.0 MiB / 128\\.0 MiB"
                      -- bash -c "\"$0\" paths render \"$1\" -o \"$2\" && cat \"$2\"" ${_railtune} ${_render_ib} ${_render_out}/ib.svg)
  paths_render_expect(ib_html ok "^wrote .*ib\\.html: job ib-job"
                      "^verbs: mlx5_1:1 InfiniBand \\(adaptive routing\\), MTU 4096, .* 4 QPs 0x1c0-&gt;0x2d0 .*, bytes per QP 32\\.0 MiB / 32\\.0 MiB / 32\\.0 MiB / 0 B"
                      -- bash -c "\"$0\" paths render \"$1\" -o \"$2\" && cat \"$2\"" ${_railtune} ${_render_ib} ${_render_out}/ib.html)
  paths_render_expect(ib_dot ok "^wrote .*ib\\.dot: job ib-job"
                      "tooltip=.*; verbs: mlx5_0:1 InfiniBand, MTU 4096, .* 2 QPs 0x1a2->0x2b4 0x1a3->0x2b5"
                      -- bash -c "\"$0\" paths render \"$1\" -o \"$2\" && cat \"$2\"" ${_railtune} ${_render_ib} ${_render_out}/ib.dot)

  add_test(NAME cli.paths_render_browser
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/paths_render_browser.py ${_railtune} ${CMAKE_CURRENT_BINARY_DIR}/paths_render_browser)
  set_tests_properties(cli.paths_render_browser PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 400
                       ENVIRONMENT_MODIFICATION "RAILTUNE_RAIL_MAP=unset:")
endif()
