# Read by cpack once per generator (CPACK_PROJECT_CONFIG_FILE): the .deb installs under /opt/railtune,
# the .tar.gz holds the same tree at its top (bin/, lib/, share/), to be unpacked anywhere.
if(CPACK_GENERATOR STREQUAL "DEB")
  set(CPACK_PACKAGING_INSTALL_PREFIX /opt/railtune)
else()
  set(CPACK_PACKAGING_INSTALL_PREFIX /)
endif()
