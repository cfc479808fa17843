#!/usr/bin/env bash
# A one-node Slurm cluster on localhost for the tests: start | stop | status.
# "stop" ends what "start" started: slurmctld, slurmd, and munged when it
# was not running before (so make test and .ci/run leave no daemon behind).
# Needs root and Debian's slurmctld, slurmd, slurm-client and munge; with
# "install", installs them first. State lives in $SLURM_TEST_DIR
# (default /tmp/cuda-labs-slurm); the tests export SLURM_CONF from there.
set -euo pipefail
dir=${SLURM_TEST_DIR:-/tmp/cuda-labs-slurm}
conf=$dir/slurm.conf
case ${1:-status} in
install)
    command -v slurmctld >/dev/null && command -v munged >/dev/null && exit 0
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq slurmctld slurmd slurm-client munge >/dev/null
    ;;
start)
    [ "$(id -u)" = 0 ] || { echo "slurm-cluster: needs root" >&2; exit 1; }
    mkdir -p "$dir/spool/ctld" "$dir/spool/d" "$dir/log"
    cpus=$(nproc)
    mem=$(awk '/MemTotal/ { print int($2 / 1024 / 2) }' /proc/meminfo)
    cat > "$conf" <<CONF
ClusterName=cudalabs
SlurmctldHost=localhost
SlurmUser=root
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
StateSaveLocation=$dir/spool/ctld
SlurmdSpoolDir=$dir/spool/d
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
NodeName=localhost CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
    if ! pgrep -x munged >/dev/null; then
        mkdir -p /run/munge /var/log/munge /var/lib/munge
        [ -s /etc/munge/munge.key ] || dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null
        chown -R munge:munge /etc/munge /run/munge /var/log/munge /var/lib/munge 2>/dev/null || true
        chmod 400 /etc/munge/munge.key
        su -s /bin/sh munge -c munged 2>/dev/null || munged --force
        # started here: "stop" ends it too (one already running is left)
        pgrep -x munged > "$dir/munged.ours" || rm -f "$dir/munged.ours"
    fi
    SLURM_CONF=$conf slurmctld -f "$conf"
    SLURM_CONF=$conf slurmd -f "$conf"
    for _ in $(seq 60); do
        if SLURM_CONF=$conf sinfo -h -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then
            echo "slurm-cluster: up ($conf)"
            exit 0
        fi
        sleep 1
    done
    echo "slurm-cluster: the node did not come up" >&2
    tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
    exit 1
    ;;
stop)
    for p in slurmd slurmctld; do
        [ -f "$dir/$p.pid" ] && kill "$(cat "$dir/$p.pid")" 2>/dev/null || true
    done
    if [ -s "$dir/munged.ours" ]; then
        # shellcheck disable=SC2046
        kill $(cat "$dir/munged.ours") 2>/dev/null || true
        rm -f "$dir/munged.ours"
    fi
    sleep 1
    rm -rf "$dir/spool"
    ;;
status)
    SLURM_CONF=$conf sinfo
    ;;
esac
