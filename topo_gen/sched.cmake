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
# The launcher env writes the rail map (railtune_topo_xml's fabric/rail_map_write.cc) and computes its NCCL_* table
# from it, as the env plugin does (formats/host_nccl_env.h).
target_link_libraries(railtune_topo_sched PUBLIC railtune_fabric railtune_formats railtune_formats_net_env
                                                  railtune_common_tools PRIVATE railtune_topo_xml)
