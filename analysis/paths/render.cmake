# `railtune paths render` (cli/paths/render.cc): the job's paths as HTML, SVG or DOT (docs/paths.md, "railtune paths render").
# The renderer reads the joined job (path_model.h) and the check's findings (path_check.h); the command
# builds them with railtune_paths (loadPathLogs, checkPaths).
add_library(railtune_paths_render STATIC
  ${CMAKE_CURRENT_LIST_DIR}/path_render.cc
  ${CMAKE_CURRENT_LIST_DIR}/path_render_graph.cc
  ${CMAKE_CURRENT_LIST_DIR}/path_render_links.cc
  ${CMAKE_CURRENT_LIST_DIR}/path_render_aggregate.cc
  ${CMAKE_CURRENT_LIST_DIR}/path_render_layout.cc
  ${CMAKE_CURRENT_LIST_DIR}/path_render_style.cc
  ${CMAKE_CURRENT_LIST_DIR}/path_render_svg_parts.cc
  ${CMAKE_CURRENT_LIST_DIR}/path_render_svg.cc
  ${CMAKE_CURRENT_LIST_DIR}/path_render_svg_racks.cc
  ${CMAKE_CURRENT_LIST_DIR}/path_render_html.cc
  ${CMAKE_CURRENT_LIST_DIR}/path_render_dot.cc)
target_link_libraries(railtune_paths_render PUBLIC railtune_paths railtune_formats)
