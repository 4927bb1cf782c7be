#!/usr/bin/env bash
# `make release`: every release binary into dist/, checked and described.
#
#   dist/ferrum-VERSION-windows-x86-64.exe   Windows 7-11 (x86_64-win7-windows-gnu)
#   dist/ferrum-VERSION-linux-x86-64         any x86-64 Linux (static)
#   dist/ferrum-VERSION-linux-aarch64        ARM64 Linux, Raspberry Pi 3/4/5 (static)
#   dist/SHA256SUMS, dist/BUILD.txt, dist/README.txt, dist/LICENSE.txt
#
# It refuses a tree with uncommitted changes (a release is a commit), builds
# the native binary and each platform's (scripts/cross.sh), and checks that
# every binary prints the native build's bench signature: the Windows one
# under Wine, the ARM one under qemu-user. BUILD.txt records the version,
# commit, compilers and signature. As root it installs the Debian packages
# it needs (cross compilers, wine, qemu-user).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
    echo "release: the tree has uncommitted changes; commit them first:" >&2
    git status --short --untracked-files=no >&2
    exit 1
fi

version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
commit=$(git rev-parse HEAD)
dist=${DIST:-dist}

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    for p in wine wine64 qemu-user; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$p" >/dev/null
    done
fi

cargo build --release --locked >&2
signature() { "$@" bench 2>/dev/null | tail -n 1 | cut -d' ' -f1; }
native=$(signature target/release/ferrum)
echo "release: Ferrum $version at $commit, bench $native" >&2

rm -rf "$dist"
mkdir -p "$dist"
win=$dist/ferrum-$version-windows-x86-64.exe
lin=$dist/ferrum-$version-linux-x86-64
arm=$dist/ferrum-$version-linux-aarch64
scripts/cross.sh windows-x86-64 "$win" >/dev/null
scripts/cross.sh linux-x86-64 "$lin" >/dev/null
scripts/cross.sh linux-aarch64 "$arm" >/dev/null

# Wine keeps its prefix out of the user's own.
export WINEPREFIX=${WINEPREFIX:-$PWD/target/wine-prefix} WINEDEBUG=-all
check() {
    local name=$1 got
    shift
    got=$(signature "$@")
    if [ "$got" != "$native" ]; then
        echo "release: $name prints bench $got, the native build $native" >&2
        exit 1
    fi
    echo "release: $name bench $got" >&2
}
check "$lin" "$lin"
check "$win" wine "$win"
check "$arm" qemu-aarch64 "$arm"

cp LICENSE "$dist/LICENSE.txt"
cat >"$dist/README.txt" <<EOF
Ferrum $version, a UCI chess engine (GPL-3.0-or-later; source: the repository at commit $commit)

  ferrum-$version-windows-x86-64.exe  Windows 7, 8, 10, 11 (64-bit): Arena, ChessBase/Fritz,
                                      Banksia, Cute Chess
  ferrum-$version-linux-x86-64        any 64-bit x86 Linux (statically linked)
  ferrum-$version-linux-aarch64       64-bit ARM Linux: Raspberry Pi 3/4/5, ARM servers (static)

Each file is the whole engine, network included. Add it to your GUI as a UCI engine (in Arena:
Engines > Install New Engine). Options most users set: Hash (MB), Threads, SyzygyPath (folders
separated by ';' on Windows, ':' elsewhere), Ponder, MultiPV, UCI_LimitStrength and UCI_Elo.
From a terminal: 'ferrum bench' prints the node count ($native) and the speed; 'ferrum --help'
lists the command-line tools (perft, epd suites, game analysis, tablebase probes).
SHA256SUMS holds each file's checksum; BUILD.txt how they were built.
EOF
{
    echo "Ferrum $version"
    echo "commit $commit"
    echo "bench $native (every binary checked: Windows under Wine, ARM64 under qemu-user)"
    echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "native and linux-x86-64: $(rustc --version)"
    echo "windows-x86-64 and linux-aarch64: $(/usr/bin/rustc --version) with -Zbuild-std"
} >"$dist/BUILD.txt"
(cd "$dist" && sha256sum "$(basename "$win")" "$(basename "$lin")" "$(basename "$arm")" >SHA256SUMS)
ls -l "$dist"
