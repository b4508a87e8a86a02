# The two commands a new user needs, on a fresh Debian 12 machine as root:
#   make demo   install missing packages, configure, build, run `railtune demo`
#   make test   the same set-up, then every ctest test, ending with ctest's summary line
# Also: make deps | configure | build | format-check | format | clean
# No CUDA toolkit or NCCL library is needed for any of them.

BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CTEST_ARGS ?=
DEMO_ARGS ?=

.PHONY: all deps configure build demo test format-check format clean

all: build

deps:
	@scripts/install-deps.sh

# Configure once; afterwards ninja re-runs cmake by itself when a CMakeLists.txt changes.
configure: deps
	@if [ ! -f $(BUILD_DIR)/build.ninja ]; then \
	  CC=gcc CXX=g++ cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release; \
	fi

build: configure
	@ninja -C $(BUILD_DIR) -j $(JOBS)

demo: build
	@$(BUILD_DIR)/bin/railtune demo $(DEMO_ARGS)

test: build
	@cd $(BUILD_DIR) && ctest --output-on-failure --no-label-summary --parallel $(JOBS) $(CTEST_ARGS)

format-check:
	@scripts/format.sh check

format:
	@scripts/format.sh fix

clean:
	rm -rf $(BUILD_DIR)
