# OpenBench and other test frameworks build engines with `make EXE=<path>`:
# this builds an optimised Ferrum for the machine it runs on and puts the
# binary at that path. `make` alone builds ./ferrum.

EXE ?= ferrum
CARGO ?= cargo
# A separate target folder, so native-CPU builds never mix with `cargo build`.
TARGET_DIR ?= target/make

ifeq ($(OS),Windows_NT)
	BIN := ferrum.exe
else
	BIN := ferrum
endif

# `make profile-build`: a profile-guided build (as Stockfish names it). It
# builds an instrumented binary, runs `bench` to record where the time goes,
# merges the profile with llvm-profdata (it must match rustc's LLVM: rustup's
# llvm-tools component, or Debian's llvm-22 for rustc 1.95, are found; set
# PROFDATA to choose; a mismatch stops the build with a message) and rebuilds
# with it. The search is the same (same bench signature), only faster. It
# builds for any x86-64 by default: on the machine measured in docs/speed.md
# `-C target-cpu=native` made Ferrum slower, with or without the profile;
# PGO_RUSTFLAGS="-C target-cpu=native" asks for it.
PGO_RUSTFLAGS ?=
RUSTC_LLVM := $(shell rustc -vV 2>/dev/null | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
PROFDATA ?= $(firstword $(wildcard $(shell rustc --print sysroot 2>/dev/null)/lib/rustlib/*/bin/llvm-profdata) $(wildcard /usr/lib/llvm-$(RUSTC_LLVM)/bin/llvm-profdata) $(shell command -v llvm-profdata-$(RUSTC_LLVM) 2>/dev/null) llvm-profdata)
PGO_DIR := $(abspath $(TARGET_DIR))/pgo-data

.PHONY: all clean profile-build windows release

all:
	RUSTFLAGS="-C target-cpu=native" $(CARGO) build --release --target-dir $(TARGET_DIR)
	cp $(TARGET_DIR)/release/$(BIN) $(EXE)

profile-build:
	@v=$$($(PROFDATA) --version 2>/dev/null | sed -n 's/.*LLVM version \([0-9]*\).*/\1/p' | head -n 1); \
	if [ "$$v" != "$(RUSTC_LLVM)" ]; then \
		echo "profile-build: $(PROFDATA) is LLVM $${v:-of unknown version}, rustc uses LLVM $(RUSTC_LLVM)." >&2; \
		echo "Install a matching llvm-profdata (rustup component add llvm-tools, or llvm-$(RUSTC_LLVM)) or set PROFDATA." >&2; \
		exit 1; \
	fi
	rm -rf $(PGO_DIR)
	RUSTFLAGS="$(PGO_RUSTFLAGS) -Cprofile-generate=$(PGO_DIR)" $(CARGO) build --release --target-dir $(TARGET_DIR)/pgo-generate
	$(TARGET_DIR)/pgo-generate/release/$(BIN) bench >/dev/null 2>&1
	$(PROFDATA) merge -o $(PGO_DIR)/merged.profdata $(PGO_DIR)
	RUSTFLAGS="$(PGO_RUSTFLAGS) -Cprofile-use=$(PGO_DIR)/merged.profdata" $(CARGO) build --release --target-dir $(TARGET_DIR)/pgo-use
	cp $(TARGET_DIR)/pgo-use/release/$(BIN) $(EXE)

clean:
	$(CARGO) clean --target-dir $(TARGET_DIR)

# `make windows`: ferrum.exe for Windows 7-11, built with Debian's packages
# (scripts/cross.sh says how); the ordinary build is untouched.
windows:
	scripts/cross.sh windows-x86-64 ferrum.exe

# `make release`: every platform's binary into dist/, each checked against
# the native bench signature (scripts/release.sh).
release:
	scripts/release.sh
