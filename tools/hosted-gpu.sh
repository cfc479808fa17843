#!/usr/bin/env bash
# Grade a lab on a hosted GPU notebook (Google Colab, Kaggle, a cloud VM),
# from the root of the handout (or of your repository):
#
#     bash tools/hosted-gpu.sh 01                  # in a notebook cell: !bash ...
#     bash tools/hosted-gpu.sh 03 --case 4096^3    # grader options after the lab
#
# It checks that the notebook has an NVIDIA GPU and the CUDA toolkit,
# installs what the build needs with apt-get (Check, subunit, cJSON,
# libseccomp, pkg-config; as root, or with sudo), installs cuDNN from
# NVIDIA's repository when the toolkit has none, and runs
# `make grade LAB=NN`. docs/colab.ipynb is a notebook that calls it.
#
# Exit status: make's (0 graded and all correct; otherwise make's last
# line names the grader's exit code, `make help` lists them), 3 without a
# GPU, 1 when something the build needs cannot be installed.
set -uo pipefail
lab=${1:?usage: bash tools/hosted-gpu.sh LAB [grader options]}
shift
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
say() { echo "hosted-gpu: $*"; }

# ---- the GPU and the toolkit ----------------------------------------------
if ! nvidia-smi -L 2> /dev/null; then
    say "no NVIDIA GPU in this notebook: choose a GPU runtime first"
    say "(Colab: Runtime > Change runtime type > a GPU, then run again)"
    exit 3
fi
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
if [ ! -x "$CUDA_HOME/bin/nvcc" ]; then
    say "no CUDA toolkit at $CUDA_HOME (nvcc): set CUDA_HOME to it"
    exit 1
fi
export CUDA_HOME PATH="$CUDA_HOME/bin:$PATH"

# ---- the build's C libraries ----------------------------------------------
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
pkgs="build-essential pkg-config check libsubunit-dev libcjson-dev libseccomp-dev"
missing=""
for p in $pkgs; do
    dpkg -s "$p" > /dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
    say "apt-get install$missing"
    $sudo apt-get update -qq > /dev/null &&
        $sudo apt-get install -y -qq $missing > /dev/null || {
        say "apt-get could not install$missing"
        exit 1
    }
fi

# ---- cuDNN (the labs' baseline): under the toolkit or the system paths -----
if make -s info NO_APT=1 2> /dev/null | grep -q "^cuDNN: .*NOT FOUND"; then
    major=$("$CUDA_HOME/bin/nvcc" --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')
    say "cuDNN is missing: apt-get install libcudnn9-dev-cuda-$major"
    if ! $sudo apt-get install -y -qq "libcudnn9-dev-cuda-$major" > /dev/null 2>&1; then
        # NVIDIA's repository for this Ubuntu release, then again
        . /etc/os-release
        repo=https://developer.download.nvidia.com/compute/cuda/repos/ubuntu${VERSION_ID//./}/$(uname -m)
        wget -q "$repo/cuda-keyring_1.1-1_all.deb" -O /tmp/cuda-keyring.deb &&
            $sudo dpkg -i /tmp/cuda-keyring.deb > /dev/null &&
            $sudo apt-get update -qq > /dev/null &&
            $sudo apt-get install -y -qq "libcudnn9-dev-cuda-$major" > /dev/null || {
            say "could not install cuDNN 9 for CUDA $major: install it, or set CUDNN_HOME"
            exit 1
        }
    fi
fi

# ---- the grade ------------------------------------------------------------
make -s info NO_APT=1
make -s grade LAB="$lab" NO_APT=1 ARGS="$*"
