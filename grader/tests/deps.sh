#!/bin/sh
# Make sure the C libraries the build needs are there: Check (tests) and
# cJSON (results.json). As root with apt, install what is missing; otherwise
# say the one command to run. Exit 0 when everything is in place.
set -u
CC=${CC:-gcc}
probe() {
    printf '#include <check.h>\n#include <cjson/cJSON.h>\nint main(void){return cJSON_IsNull(0);}\n' |
        $CC -x c - -o /dev/null -lcheck -lsubunit -lcjson -lm -lrt -pthread >/dev/null 2>&1
}
probe && exit 0
pkgs="check libcjson-dev libsubunit-dev pkg-config"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing $pkgs (apt-get, as root)"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq $pkgs; } >/dev/null 2>&1 || {
        echo "deps: apt-get could not install $pkgs" >&2
        exit 1
    }
    probe && exit 0
    echo "deps: installed, but a test program still does not build" >&2
    exit 1
fi
echo "deps: Check and cJSON are missing. Install them with:" >&2
echo "    sudo apt-get install $pkgs" >&2
echo "(on a machine with no network, see the README: 'Offline GPU hosts')" >&2
exit 1
