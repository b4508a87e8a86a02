# The two commands a new user needs, on a fresh Debian 12 machine as root:
#   make demo   install missing packages, configure, build, run `railtune demo`
#   make test   the same set-up, then every ctest test, ending with ctest's summary line
# Also: make deps | configure | build | format-check | format | clean
#       make build-arm64 | test-arm64   the aarch64 (Grace) build with Debian's cross toolchain, and
#                                       its test set under qemu (docs/building.md)
#       make package                    .deb and .tar.gz for amd64 and arm64 into packages/
#                                       (docs/training-image.md)
# No CUDA toolkit or NCCL library is needed for any of them.

BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CTEST_ARGS ?=
# More -D options for a build folder's first configure, e.g. CMAKE_ARGS=-DRAILTUNE_UNITY_BUILD=OFF.
CMAKE_ARGS ?=
DEMO_ARGS ?=

ARM64_BUILD_DIR ?= build-arm64
# The aarch64 test set (RAILTUNE_TESTS=cross) run under qemu: ABI layout, emulator sentinels, the
# plugins' e2e tests, hygiene (glibc floor), and the CLI's golden-file tests.
ARM64_TESTS ?= ^(abi|emulator|e2e|hygiene)[.]|^cli[.](version|help|config_doc_current|format_golden_.*|tuner_decisions_golden_.*|tuner_decisions_example_current|paths_check_format_example|paths_render_example_.*|paths_synth_truth_example|profile_(hangs_ring|hangs_allgather|stragglers_allgather))$$

.PHONY: all deps configure build demo test format-check format clean build-arm64 test-arm64 package

all: build

deps:
	@scripts/install-deps.sh

# Configure once; afterwards ninja re-runs cmake by itself when a CMakeLists.txt changes.
configure: deps
	@if [ ! -f $(BUILD_DIR)/build.ninja ]; then \
	  CC=gcc CXX=g++ cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS); \
	fi

build: configure
	@ninja -C $(BUILD_DIR) -j $(JOBS)

demo: build
	@$(BUILD_DIR)/bin/railtune demo $(DEMO_ARGS)

test: build
	@cd $(BUILD_DIR) && ctest --output-on-failure --no-label-summary --parallel $(JOBS) $(CTEST_ARGS)

build-arm64:
	@scripts/install-deps.sh arm64
	@if [ ! -f $(ARM64_BUILD_DIR)/build.ninja ]; then \
	  cmake -S . -B $(ARM64_BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	    -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake -DRAILTUNE_BENCH=OFF -DRAILTUNE_TESTS=cross $(CMAKE_ARGS); \
	fi
	@ninja -C $(ARM64_BUILD_DIR) -j $(JOBS)

test-arm64: build-arm64
	@cd $(ARM64_BUILD_DIR) && ctest --output-on-failure --no-label-summary --parallel $(JOBS) \
	  -R '$(ARM64_TESTS)' $(CTEST_ARGS)

package: build build-arm64
	@for dir in $(BUILD_DIR) $(ARM64_BUILD_DIR); do \
	  ninja -C $$dir railtune_man && (cd $$dir && cpack) || exit 1; \
	done
	@mkdir -p packages && cp $(BUILD_DIR)/packages/railtune[-_]* $(ARM64_BUILD_DIR)/packages/railtune[-_]* packages/
	@ls -l packages/

format-check:
	@scripts/format.sh check

format:
	@scripts/format.sh fix

clean:
	rm -rf $(BUILD_DIR)
