#!/usr/bin/env bash
# Builds Ferrum for another platform than the one it runs on, or a Linux
# build that runs on any x86-64 Linux, with Debian's packages and crates.io
# alone (rustup cannot fetch other targets' standard libraries here):
#
#   scripts/cross.sh windows-x86-64 [OUT]   ferrum.exe for Windows 7 and later
#   scripts/cross.sh linux-x86-64 [OUT]     static x86-64 Linux binary (no glibc needed)
#   scripts/cross.sh linux-aarch64 [OUT]    static ARM64 Linux binary (Raspberry Pi 3/4/5)
#
# OUT is the file to write (default: target/cross/ferrum-PLATFORM[.exe]).
# The ordinary `cargo build` is untouched: everything goes under
# target/cross (CROSS_TARGET_DIR).
#
# How: Debian 12's `rustc-web`/`cargo-web` 1.96 come with `rust-web-src`,
# the source of exactly that compiler's standard library, so cargo's
# `-Zbuild-std` (allowed on a stable compiler by RUSTC_BOOTSTRAP=1) builds
# std for the target, and a Debian cross gcc links:
#   - Windows: target x86_64-win7-windows-gnu, linked by MinGW-w64. It runs
#     on Windows 7 to 11 and on Wine 8.0 (Debian 12's): the plain
#     x86_64-pc-windows-gnu std (Rust >= 1.78) needs ProcessPrng from
#     bcryptprimitives.dll, which Windows 7/8 and Wine < 8.13 lack. The
#     .exe imports system DLLs only (no MinGW runtime to ship).
#   - ARM64: target aarch64-unknown-linux-gnu, statically linked
#     (crt-static) against Debian's cross glibc by aarch64-linux-gnu-gcc.
#   - x86-64 Linux: rustup's own toolchain, statically linked (crt-static):
#     static glibc keeps glibc's allocator and string functions (musl's are
#     slower), and the binary needs no C library on the machine. Ferrum
#     loads no NSS module and nothing with dlopen, which static glibc cannot.
# Every build targets the baseline of its architecture (x86-64 with SSE2;
# the network's AVX2 kernels are chosen at run time; ARM64 uses the
# portable kernels, which give the same integers), so the bench signature
# is the same everywhere.
#
# CROSS_PROFILE picks the cargo profile (default `release`, what is
# shipped); scripts/test.sh uses `ci-cross` (Cargo.toml), the same code
# optimised without whole-program LTO, which builds faster on CI's two cores.
#
# Run as root, it installs the Debian packages it needs (apt-get);
# otherwise it says which are missing.
set -euo pipefail
cd "$(dirname "$0")/.."

platform=${1:-}
target_dir=${CROSS_TARGET_DIR:-target/cross}
profile=${CROSS_PROFILE:-release}

need() {
    # need PACKAGE... : installs the Debian packages that are missing.
    local missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "cross.sh: installing ${missing[*]}" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 ||
            { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq "${missing[@]}" >/dev/null; }
    else
        echo "cross.sh: needs the Debian packages ${missing[*]} (apt-get install, as root)" >&2
        exit 1
    fi
}

# debian_rustc TARGET: makes sure Debian's rustc knows TARGET and is new
# enough for Ferrum (let chains: 1.88). A machine whose package lists are
# older than the packages offers bookworm's rustc-web 1.85 (no
# x86_64-win7-windows-gnu, no let chains) although bookworm-security has
# 1.96: then the lists are refreshed and the three packages upgraded.
debian_rustc() {
    local target=$1
    usable() {
        local minor
        minor=$(/usr/bin/rustc --version 2>/dev/null | sed -n 's/^rustc 1\.\([0-9]*\).*/\1/p')
        [ "${minor:-0}" -ge 88 ] && /usr/bin/rustc --print target-list 2>/dev/null | grep -qx "$target"
    }
    usable && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "cross.sh: $(/usr/bin/rustc --version 2>/dev/null) cannot build $target; upgrading rustc-web" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >/dev/null 2>&1 || true
        apt-get install -y -qq rustc-web cargo-web rust-web-src >/dev/null 2>&1 || true
    fi
    usable || {
        echo "cross.sh: Debian's rustc ($(/usr/bin/rustc --version 2>/dev/null)) cannot build $target for Ferrum: rustc-web 1.88 or newer is needed" >&2
        exit 1
    }
}

# build_std TARGET LINKER: a release build of TARGET with Debian's compiler
# (CROSS_PROFILE) and the std it builds from source; prints the binary's path.
build_std() {
    local target=$1 linker=$2 var
    var="CARGO_TARGET_$(echo "$target" | tr 'a-z-' 'A-Z_')_LINKER"
    env RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 "$var=$linker" \
        /usr/bin/cargo build --profile "$profile" --locked -Zbuild-std --target "$target" \
        --target-dir "$target_dir" >&2
}

case "$platform" in
windows-x86-64)
    need rustc-web cargo-web rust-web-src gcc-mingw-w64-x86-64
    debian_rustc x86_64-win7-windows-gnu
    build_std x86_64-win7-windows-gnu x86_64-w64-mingw32-gcc
    built=$target_dir/x86_64-win7-windows-gnu/$profile/ferrum.exe
    default_out=$target_dir/ferrum-windows-x86-64.exe
    ;;
linux-aarch64)
    need rustc-web cargo-web rust-web-src gcc-aarch64-linux-gnu libc6-dev-arm64-cross
    debian_rustc aarch64-unknown-linux-gnu
    RUSTFLAGS="-C target-feature=+crt-static" build_std aarch64-unknown-linux-gnu aarch64-linux-gnu-gcc
    built=$target_dir/aarch64-unknown-linux-gnu/$profile/ferrum
    default_out=$target_dir/ferrum-linux-aarch64
    ;;
linux-x86-64)
    # --target keeps the flag off build scripts and proc macros (they run here).
    RUSTFLAGS="-C target-feature=+crt-static" cargo build --profile "$profile" --locked \
        --target x86_64-unknown-linux-gnu --target-dir "$target_dir" >&2
    built=$target_dir/x86_64-unknown-linux-gnu/$profile/ferrum
    default_out=$target_dir/ferrum-linux-x86-64
    ;;
*)
    echo "usage: scripts/cross.sh windows-x86-64|linux-x86-64|linux-aarch64 [OUT]" >&2
    exit 2
    ;;
esac

out=${2:-$default_out}
mkdir -p "$(dirname "$out")"
cp "$built" "$out"
echo "$out"
