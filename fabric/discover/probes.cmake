# railtune_discover_probes: the sysfs RDMA/net classes (sysfs_*.cc) and NVML through dlopen
# (nvml_*.cc). CLI side; NVML is never linked, so the CLI runs on hosts without an NVIDIA driver.
add_library(railtune_discover_probes STATIC sysfs_parse.cc sysfs_files.cc sysfs_read.cc nvml_read.cc nvml_format.cc)
target_link_libraries(railtune_discover_probes PUBLIC railtune_fabric railtune_common ${CMAKE_DL_LIBS})
# In the fuzz build the parsers carry coverage counters, so fuzz_sysfs_values is guided by them (the
# ASan runtime every other program of that build links provides the counters' hooks).
if(RAILTUNE_FUZZ)
  target_compile_options(railtune_discover_probes PRIVATE -fsanitize=fuzzer-no-link)
endif()
