# Vigil — two commands on a fresh machine: `make demo` and `make test`.
#
# Frame pointers: Swift at -O on Linux x86_64 omits them, and Vigil's samplers and crash
# handler walk frame pointers, so every build of the package keeps them (passed here rather
# than as unsafeFlags, so the package stays usable as a versioned dependency).

SWIFT      ?= swift
FP_FLAGS   := -Xswiftc -Xcc -Xswiftc -fno-omit-frame-pointer -Xcc -fno-omit-frame-pointer
DEBUG_BIN   = $(shell $(SWIFT) build --show-bin-path 2>/dev/null)
RELEASE_BIN = $(shell $(SWIFT) build -c release --show-bin-path 2>/dev/null)
TEST_TIMEOUT ?= 1500
FUZZ_SECONDS ?= 300
export PATH := /opt/swift/usr/bin:$(PATH)

.PHONY: all bootstrap build release test demo bench fuzz fixtures clean

all: build

bootstrap:
	@scripts/bootstrap

build: bootstrap
	$(SWIFT) build $(FP_FLAGS)

release: bootstrap
	$(SWIFT) build -c release $(FP_FLAGS)

# Builds every product first: real-process tests run vigil and vigil-sample.
test: build
	@scripts/bootstrap --ble
	$(SWIFT) build --build-tests $(FP_FLAGS)
	scripts/run-tests $(TEST_TIMEOUT) "$(DEBUG_BIN)" $(FP_FLAGS)

demo: release
	VIGIL_BIN_DIR="$(RELEASE_BIN)" scripts/demo

bench: bootstrap
	@scripts/bootstrap --bench
	$(SWIFT) build -c release $(FP_FLAGS)
	VIGIL_BIN_DIR="$(RELEASE_BIN)" scripts/bench

fuzz: bootstrap
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz

fixtures: bootstrap
	Tests/Fixtures/build.sh

clean:
	rm -rf .build Fuzz/.build .vigil
