# Installation layout and packages (docs/training-image.md, "Installing"): everything under one
# prefix, /opt/railtune by default, the same in the .deb and the relocatable .tar.gz:
#   bin/railtune                          the CLI (finds the plugins in ../lib)
#   lib/libnccl-{net,tuner,profiler}-railtune.so
#   lib/railtune/verbs_sim/libibverbs.so.1  the verbs simulator (`railtune emu net-job --transport ib`); in a
#                                         folder of its own so that nothing finds it as the system's libibverbs
#   share/man/man1/railtune*.1            generated from --help (scripts/make-man.sh, `make package`)
#   share/doc/railtune/                   README and docs/*.md
#   share/railtune/schemas/               the JSON Schemas of every file railtune reads or writes
# `make package` builds both packages for amd64 and arm64 into packages/.
if(CMAKE_INSTALL_PREFIX_INITIALIZED_TO_DEFAULT)
  set(CMAKE_INSTALL_PREFIX /opt/railtune CACHE PATH "Installation prefix" FORCE)
endif()

install(TARGETS railtune_net_plugin railtune_tuner_plugin railtune_profiler_plugin railtune_env_plugin
        LIBRARY DESTINATION lib COMPONENT railtune)
install(TARGETS railtune RUNTIME DESTINATION bin COMPONENT railtune)
install(TARGETS railtune_verbs_sim LIBRARY DESTINATION lib/railtune/verbs_sim NAMELINK_SKIP COMPONENT railtune)
if(RAILTUNE_PORTABLE_CLI AND RAILTUNE_SIMDJSON_FILE)
  install(FILES ${RAILTUNE_SIMDJSON_FILE} DESTINATION lib RENAME ${RAILTUNE_SIMDJSON_SONAME} COMPONENT railtune)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION share/doc/railtune COMPONENT railtune)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION share/doc/railtune COMPONENT railtune
        FILES_MATCHING PATTERN "*.md" PATTERN "formats" EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/formats/ DESTINATION share/railtune/schemas COMPONENT railtune
        FILES_MATCHING PATTERN "*.schema.json")

# Man pages: built by the railtune_man target (not part of `all`, so that a plain build needs no
# help2man), installed when present.
set(RAILTUNE_MAN_DIR ${CMAKE_BINARY_DIR}/man)
if(CMAKE_CROSSCOMPILING_EMULATOR)
  set(_man_program ${CMAKE_BINARY_DIR}/bin/railtune-emulated)  # tests/CMakeLists.txt writes it
else()
  set(_man_program $<TARGET_FILE:railtune>)
endif()
add_custom_target(railtune_man
                  COMMAND ${CMAKE_COMMAND} -E rm -rf ${RAILTUNE_MAN_DIR}
                  COMMAND ${PROJECT_SOURCE_DIR}/scripts/make-man.sh ${_man_program} ${RAILTUNE_MAN_DIR}
                  DEPENDS railtune
                  COMMENT "man pages from railtune --help"
                  VERBATIM)
install(DIRECTORY ${RAILTUNE_MAN_DIR}/ DESTINATION share/man/man1 COMPONENT railtune OPTIONAL)

# Debian's name for the architecture.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
  set(_deb_arch arm64)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(_deb_arch amd64)
else()
  set(_deb_arch ${CMAKE_SYSTEM_PROCESSOR})
endif()

set(CPACK_PACKAGE_NAME railtune)
set(CPACK_PACKAGE_VENDOR railtune)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "NCCL tuner, net, profiler and env plugins and tools for rail-optimized GPU clusters")
set(CPACK_PACKAGE_FILE_NAME railtune-${PROJECT_VERSION}-${_deb_arch})
set(CPACK_PACKAGE_INSTALL_DIRECTORY railtune)
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_CURRENT_LIST_DIR}/CPackPerGenerator.cmake)  # the prefix in each
set(CPACK_GENERATOR DEB TGZ)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/packages)
# The .tar.gz holds the prefix's contents at its top (bin/, lib/, share/): unpack it anywhere.
set(CPACK_ARCHIVE_COMPONENT_INSTALL OFF)
set(CPACK_INCLUDE_TOPLEVEL_DIRECTORY OFF)
set(CPACK_SET_DESTDIR OFF)

set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE ${_deb_arch})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "railtune developers")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# The plugins need glibc (the floor, docs/design.md) and libgcc_s only; a portable CLI adds libstdc++
# for the simdjson it carries, otherwise the Debian 12 libraries it was built with. Written out rather
# than found by dpkg-shlibdeps, which cannot read a cross build's libraries.
if(RAILTUNE_PORTABLE_CLI)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= ${RAILTUNE_GLIBC_FLOOR}), libgcc-s1, libstdc++6")
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "libc6 (>= ${RAILTUNE_GLIBC_FLOOR}), libgcc-s1, libstdc++6 (>= 12), libyaml-cpp0.7, libpugixml1v5, libsimdjson14")
endif()
set(CPACK_PACKAGE_DESCRIPTION
    "The four NCCL plugins (libnccl-net-railtune.so, libnccl-tuner-railtune.so, libnccl-profiler-railtune.so, libnccl-env-railtune.so under /opt/railtune/lib) and the railtune CLI: topology outputs for NCCL and schedulers, tuner decisions, path and profile analyses, railtune doctor.")
include(CPack)
