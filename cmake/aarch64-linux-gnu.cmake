# Cross toolchain for Grace (aarch64) from Debian's packages:
#   g++-aarch64-linux-gnu (or crossbuild-essential-arm64) for the compiler;
#   the :arm64 -dev packages of the libraries the CLI and tests link (multiarch: /usr/lib/aarch64-linux-gnu);
#   qemu-user-static to run what was built (tests, gtest discovery) on an x86-64 host.
# Used by `make build-arm64` and CI's aarch64 stage:
#   cmake -S . -B build-arm64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# Headers shared by both architectures live in /usr/include; libraries and their CMake package files
# in /usr/lib/aarch64-linux-gnu, which CMake searches because of CMAKE_LIBRARY_ARCHITECTURE. Programs
# (python3, readelf) are the host's.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
# yaml-cpp's and simdjson's aarch64 development files cannot be installed beside the native ones:
# scripts/install-deps.sh arm64 unpacks them here, and packages are searched here first.
list(APPEND CMAKE_FIND_ROOT_PATH /opt/railtune-cross/arm64)

# Without binfmt_misc (containers, CI) an aarch64 program runs only under qemu. Multiarch puts the
# aarch64 loader at /lib/ld-linux-aarch64.so.1, so qemu needs no -L.
find_program(RAILTUNE_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64)
if(RAILTUNE_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${RAILTUNE_QEMU_AARCH64})
endif()
