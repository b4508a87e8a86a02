# railtune_discover_hwloc: the hwloc source of `railtune topo discover` (hwloc_source.h). CLI side only:
# it links pugixml; libhwloc itself is opened with dlopen at run time, never linked.
add_library(railtune_discover_hwloc STATIC
  ${CMAKE_CURRENT_LIST_DIR}/hwloc_attrs.cc
  ${CMAKE_CURRENT_LIST_DIR}/hwloc_xml.cc
  ${CMAKE_CURRENT_LIST_DIR}/hwloc_live.cc)
target_link_libraries(railtune_discover_hwloc PUBLIC railtune_fabric railtune_common PRIVATE railtune_pugixml
                      ${CMAKE_DL_LIBS})
