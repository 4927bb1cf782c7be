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

.PHONY: all clean

all:
	RUSTFLAGS="-C target-cpu=native" $(CARGO) build --release --target-dir $(TARGET_DIR)
	cp $(TARGET_DIR)/release/$(BIN) $(EXE)

clean:
	$(CARGO) clean --target-dir $(TARGET_DIR)
