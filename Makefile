# Thin wrapper over CMake/Ninja. `make demo` and `make test` work on a fresh Debian 12 machine as root:
# they install missing Debian packages first (apt-get), then configure, build and run.
BUILD ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)
PACKAGES := cmake ninja-build g++ pkg-config tao-pegtl-dev libfmt-dev catch2 libedit-dev llvm-19-dev libzstd-dev libprotobuf-dev libonnx-dev libonnx-testdata nlohmann-json3-dev

.PHONY: all deps configure build demo test clean fuzz asan

all: build

# Installs only what is missing (no network needed when everything is there).
deps:
	@missing=""; for p in $(PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" != 0 ]; then echo "run as root (or install:$$missing)"; exit 1; fi; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

configure: deps $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(BUILD)/tools/rlx print examples/mlp.relax
	$(BUILD)/tools/rlx run examples/mlp.relax --time 100

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# AddressSanitizer + UBSan build of the whole test suite, slow large-shape tests included.
# -O1 (not -O0) because the instrumented reference evaluator and interpreters at -O0 take over 20
# minutes per large test; Debug keeps the asserts. Any finding stops its test with a stack trace.
SANITIZER_ENV := ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
asan: deps
	cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DRLX_SANITIZE=ON \
	  "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g" "-DCMAKE_C_FLAGS_DEBUG=-O1 -g"
	cmake --build build-asan -j $(JOBS)
	$(SANITIZER_ENV) ctest --test-dir build-asan --output-on-failure --timeout 3600 -j $(JOBS)

# libFuzzer targets: the parser + printer round trip, the ONNX reader + importer, BYOC pattern
# text, pass pipeline text and the Relay #[metadata] reader.
fuzz: PACKAGES += clang-19 libclang-rt-19-dev
fuzz: deps
	cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_C_COMPILER=clang-19 -DRLX_FUZZ=ON
	cmake --build build-fuzz --target rlx_fuzz_parser rlx_fuzz_onnx rlx_fuzz_pattern rlx_fuzz_pipeline rlx_fuzz_relay_meta rlx_fuzz_relay -j $(JOBS)

clean:
	rm -rf $(BUILD) build-asan build-fuzz
