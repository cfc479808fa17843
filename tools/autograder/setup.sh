#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image
# (make autograder LAB=NN put it at the top of the zip). It installs what
# the build needs and builds the grader in cuda-labs/, so that
# run_autograder only builds and grades the student's file.
#
# Settings (the environment, or autograder.env beside this file):
#   CUDA_HOME       where the toolkit is or goes (default /usr/local/cuda)
#   CUDA_PACKAGES   what to install from NVIDIA's apt repository when there
#                   is no $CUDA_HOME/bin/nvcc (default: cuda-toolkit-12-8
#                   cudnn9-cuda-12); an image with CUDA and cuDNN skips it
#   GPU_ARCH        GPU architectures to build the grader for ("80 90");
#                   default: 75, 80 and 90 (with PTX for newer GPUs)
#   NO_APT=1        install nothing (the image has everything: tests do so)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck disable=SC1091
. "$here/autograder.env"
tree=$here/cuda-labs
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export CUDA_HOME

if [ "${NO_APT:-0}" != 1 ]; then
    export DEBIAN_FRONTEND=noninteractive
    echo "setup: apt-get install: compilers and the grader's libraries"
    apt-get update -qq
    apt-get install -y -qq build-essential pkg-config wget ca-certificates \
        check libsubunit-dev libcjson-dev libseccomp-dev libcapstone-dev
    if [ ! -x "$CUDA_HOME/bin/nvcc" ]; then
        # NVIDIA's repository for this Ubuntu release and architecture
        . /etc/os-release
        arch=$(uname -m)
        [ "$arch" = aarch64 ] && arch=sbsa
        repo=https://developer.download.nvidia.com/compute/cuda/repos/ubuntu${VERSION_ID//./}/$arch
        echo "setup: the CUDA toolkit and cuDNN from $repo"
        wget -q "$repo/cuda-keyring_1.1-1_all.deb" -O /tmp/cuda-keyring.deb
        dpkg -i /tmp/cuda-keyring.deb
        apt-get update -qq
        # shellcheck disable=SC2086
        apt-get install -y -qq ${CUDA_PACKAGES:-cuda-toolkit-12-8 cudnn9-cuda-12}
        [ -x "$CUDA_HOME/bin/nvcc" ] || ln -sfn "$(ls -d /usr/local/cuda-* | sort -V | tail -n 1)" "$CUDA_HOME"
    fi
fi
echo "setup: building the grader in $tree"
make -C "$tree" -j"$(nproc)" grader NO_APT=1 ${GPU_ARCH:+GPU_ARCH="$GPU_ARCH"}
"$tree/build/bin/grade" --version
