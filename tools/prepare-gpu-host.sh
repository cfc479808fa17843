#!/usr/bin/env bash
# Prepare an offline GPU host for this project's build and tests.
#
# Run this in the project's root on a machine that reaches a Debian or
# Ubuntu package archive like the GPU host's (same release, ideally). It
# downloads the C libraries the project builds against, as .deb files, into
# .deps/debs/, and writes .deps/env.sh:
#
#   Check, subunit   the unit tests          cJSON    results.json
#   libseccomp       the grader's sandbox    Capstone the grader's sandbox
#
# Copy the tree with .deps/ to the GPU host, then there:
#
#     source .deps/env.sh && make test && make grade SOLUTION=1
#
# env.sh unpacks the .debs into a private prefix (no root, no package
# manager) and points the compiler, linker, loader and pkg-config at it,
# on x86_64 and aarch64 hosts alike.
#
#   ARCH=arm64 bash tools/prepare-gpu-host.sh   the packages for an Arm host
#       (such as GH200) from an x86_64 machine; needs
#       `dpkg --add-architecture arm64 && apt-get update` there first
#   FORCE=1   download again what is already in .deps/debs/
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deps=$root/.deps
mkdir -p "$deps/debs"
command -v apt-get > /dev/null || {
    echo "prepare-gpu-host: needs apt-get (a Debian or Ubuntu machine)" >&2
    exit 1
}
pkgs="check libsubunit0 libsubunit-dev libcjson1 libcjson-dev libseccomp2
      libseccomp-dev libcapstone4 libcapstone-dev"
arch=${ARCH:-$(dpkg --print-architecture)}
[ "${FORCE:-0}" != 1 ] || rm -f "$deps"/debs/*.deb
compgen -G '/var/lib/apt/lists/*_Packages*' > /dev/null || apt-get update -qq
have() { # have PACKAGE: its .deb for $arch is in .deps/debs
    local f
    for f in "$deps/debs/${1}_"*"_${arch}.deb" "$deps/debs/${1}_"*_all.deb; do
        [ -e "$f" ] && return 0
    done
    return 1
}
missing=""
for p in $pkgs; do
    have "$p" || missing="$missing $p:$arch"
done
if [ -n "$missing" ]; then
    echo "prepare-gpu-host: apt-get download$missing"
    # one at a time: a package this release lacks (libcapstone4 is
    # libcapstone5 on newer ones) is named, and the rest still come
    get() { # get PACKAGE:ARCH
        local log
        log=$(cd "$deps/debs" && apt-get download -q "$1" 2>&1) ||
            echo "prepare-gpu-host: could not download $1: $(echo "$log" | tail -n 1)" >&2
    }
    for p in $missing; do get "$p"; done
    # libcapstone5 where the release has no libcapstone4
    have libcapstone4 || have libcapstone5 || get "libcapstone5:$arch"
fi
cat > "$deps/env.sh" << 'ENV'
# Source me on the GPU host (bash): unpacks .deps/debs into a private
# prefix and points the build at it. DEPS_PREFIX moves the prefix.
_deps_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
_prefix=${DEPS_PREFIX:-/tmp/cuda-labs-deps-$(id -u)}
if [ ! -e "$_prefix/.unpacked" ] || [ "$_deps_dir/debs" -nt "$_prefix/.unpacked" ]; then
  mkdir -p "$_prefix"
  for _f in "$_deps_dir"/debs/*.deb; do dpkg -x "$_f" "$_prefix"; done
  touch "$_prefix/.unpacked"
fi
# the multiarch folder of this host: x86_64-linux-gnu, aarch64-linux-gnu
_triplet=$(gcc -dumpmachine 2>/dev/null || echo "$(uname -m)-linux-gnu")
case $_triplet in *-linux-gnu) ;; *) _triplet=$(uname -m)-linux-gnu ;; esac
_lib="$_prefix/usr/lib/$_triplet"
[ -d "$_lib" ] || echo "env.sh: no $_lib: were the packages downloaded for this host's architecture? (ARCH=arm64 on an Arm host)" >&2
# as system headers (-isystem, not -I): their own macros warn nowhere
export C_INCLUDE_PATH="$_prefix/usr/include${C_INCLUDE_PATH:+:$C_INCLUDE_PATH}"
export CPLUS_INCLUDE_PATH="$_prefix/usr/include${CPLUS_INCLUDE_PATH:+:$CPLUS_INCLUDE_PATH}"
export LIBRARY_PATH="$_lib${LIBRARY_PATH:+:$LIBRARY_PATH}"
export LD_LIBRARY_PATH="$_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# the .pc files name prefix=/usr: let pkg-config rebase them
export PKG_CONFIG_PATH="$_lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export PKG_CONFIG_SYSROOT_DIR="$_prefix"
unset _deps_dir _prefix _lib _triplet _f
ENV
echo "prepare-gpu-host: $(ls "$deps/debs" | wc -l) packages in .deps/debs ($arch)"
echo "on the GPU host, in the project's root: source .deps/env.sh && make test"
