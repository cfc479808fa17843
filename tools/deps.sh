#!/bin/sh
# Make sure the C libraries the build needs are there: Check (tests),
# cJSON (results.json), libseccomp (the runner's sandbox) and Capstone
# (the static check decodes a submission's machine code). As root with
# apt, say so and install what is missing, unless NO_APT=1; otherwise say
# the one command to run. Exit 0
# when everything is in place.
set -u
CC=${CC:-gcc}
# the CUDA toolkit and cuDNN are not ours to install: say what is missing
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
if [ ! -x "$CUDA_HOME/bin/nvcc" ]; then
    echo "deps: the CUDA toolkit is missing: no $CUDA_HOME/bin/nvcc." >&2
    echo "      Install CUDA 12 or 13 (NVIDIA's packages) or set CUDA_HOME=/path/to/cuda." >&2
    exit 1
fi
if [ -z "${CUDNN_FOUND:-}" ]; then
    echo "deps: cuDNN 9 was not found under $CUDA_HOME, in the system paths, or at" >&2
    echo "      CUDNN_HOME. Install it (NVIDIA's cudnn9 packages) or set CUDNN_HOME." >&2
    exit 1
fi
probe() {
    printf '#include <check.h>\n#include <cjson/cJSON.h>\n#include <seccomp.h>\n#include <capstone/capstone.h>\nint main(void){return cJSON_IsNull(0) + !seccomp_init(0) + (int)cs_version(0, 0);}\n' |
        $CC -x c - -o /dev/null -lcheck -lsubunit -lcjson -lseccomp -lcapstone -lm -lrt -pthread >/dev/null 2>&1
}
probe && exit 0
pkgs="check libcjson-dev libsubunit-dev libseccomp-dev libcapstone-dev pkg-config"
if [ "${NO_APT:-0}" != 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: Check, cJSON, libseccomp or Capstone is missing; running, as root:"
    echo "        apt-get update && apt-get install $pkgs"
    echo "      (NO_APT=1 skips this and only names the packages)"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq $pkgs; } >/dev/null 2>&1 || {
        echo "deps: apt-get could not install $pkgs" >&2
        exit 1
    }
    probe && exit 0
    echo "deps: installed, but a test program still does not build" >&2
    exit 1
fi
echo "deps: Check, cJSON, libseccomp or Capstone is missing. Install them with:" >&2
echo "    sudo apt-get install $pkgs" >&2
echo "(on a machine with no network, see the README: 'Offline GPU hosts')" >&2
exit 1
