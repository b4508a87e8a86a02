# railtune_topo_sched: the scheduler- and launcher-facing emitters (Kubernetes labels, Volcano
# HyperNodes, Kueue Topology, Slurm topology.conf, launcher env). Reads the fabric model only.
add_library(railtune_topo_sched STATIC
  ${CMAKE_CURRENT_LIST_DIR}/sched_common.cc
  ${CMAKE_CURRENT_LIST_DIR}/labels.cc
  ${CMAKE_CURRENT_LIST_DIR}/hypernodes.cc
  ${CMAKE_CURRENT_LIST_DIR}/kueue.cc
  ${CMAKE_CURRENT_LIST_DIR}/slurm_hostlist.cc
  ${CMAKE_CURRENT_LIST_DIR}/slurm.cc
  ${CMAKE_CURRENT_LIST_DIR}/launcher_env.cc
  ${CMAKE_CURRENT_LIST_DIR}/measured_net.cc)
# The launcher env computes its NCCL_* table from the host as the rail map holds it, with the env plugin's function
# (formats/host_nccl_env.h, in railtune_formats).
target_link_libraries(railtune_topo_sched PUBLIC railtune_fabric railtune_formats railtune_formats_net_env
                                                  railtune_common_tools)
