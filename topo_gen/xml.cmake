# railtune_topo_xml: NCCL topology XML (writer, pugixml reader, limit checks), the rail map writer, and the
# checks of `topo check` (cluster_check).
# CLI side only: it links pugixml, which no plugin may carry.
add_library(railtune_topo_xml STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/nccl_xml.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/nccl_xml_read.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/nccl_xml_check.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/cluster_check.cc
  ${PROJECT_SOURCE_DIR}/fabric/rail_map_write.cc)
target_link_libraries(railtune_topo_xml PUBLIC railtune_fabric railtune_formats railtune_pugixml
                                         PRIVATE railtune_fabric_yaml)  # cluster_check reads descriptions
