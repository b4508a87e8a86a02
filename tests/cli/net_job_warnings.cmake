# The plugins' WARNs in `railtune emu net-job` and `railtune demo` (docs/net-job.md, "Plugin WARNs"):
# on stderr, once each with their ranks, counted in the summary; a profile folder the ranks may not
# write, a Prometheus file below a regular file, a healthy job, and the demo.
set(_cases clean unwritable prometheus)
if(NOT RAILTUNE_SANITIZED)
  list(APPEND _cases demo)  # the whole demo is left to the release build, as cli.demo_output
endif()
foreach(_case ${_cases})
  add_test(NAME cli.net_job_warnings_${_case}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/net_job_warnings.sh ${_case} ${_railtune}
                   ${CMAKE_CURRENT_SOURCE_DIR}/as_unprivileged.sh ${CMAKE_CURRENT_BINARY_DIR}/net_job_warnings_${_case})
  set_tests_properties(cli.net_job_warnings_${_case} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                       ENVIRONMENT_MODIFICATION "RAILTUNE_RAIL_MAP=unset:;RAILTUNE_PROFILE_PROMETHEUS=unset:;RAILTUNE_PROFILE_DIR=unset:")
endforeach()
