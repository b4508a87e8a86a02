# railtune_discover: joins the sources into the fabric model (pure; the CLI does the reading). It uses
# the probes' text helpers (GUIDs, the clique label rule), not their readers.
add_library(railtune_discover STATIC ${CMAKE_CURRENT_SOURCE_DIR}/assemble.cc ${CMAKE_CURRENT_SOURCE_DIR}/assemble_gpus.cc
                                     ${CMAKE_CURRENT_SOURCE_DIR}/assemble_nics.cc
                                     ${CMAKE_CURRENT_SOURCE_DIR}/assemble_health.cc)
target_link_libraries(railtune_discover PUBLIC railtune_fabric PRIVATE railtune_discover_probes)

# railtune_discover_host: `topo discover`'s whole job but printing (discover_host.h): the sources read, the
# host assembled and checked.
find_package(nlohmann_json 3 REQUIRED)
add_library(railtune_discover_host STATIC ${CMAKE_CURRENT_SOURCE_DIR}/discover_host.cc)
target_link_libraries(railtune_discover_host PUBLIC railtune_discover PRIVATE railtune_discover_hwloc
                      railtune_discover_probes nlohmann_json::nlohmann_json)
