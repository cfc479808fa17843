#!/usr/bin/env bash
# make plots: draw each lab's bench results (docs/data/labNN.csv, copied
# from a GPU run of `make bench SOLUTION=1`) as docs/img/labNN[-group].png:
# throughput against work per call for each rung, the library baseline and
# the ceiling. Each rung's legend is its code in the CSV: the rung's name
# from its LADDER file (bench.sh; a code of the form VAR=k is looked up in
# solutions/NN-*/LADDER here). Cases named "X:..." are drawn in one plot
# per group X; docs/data/labNN.exclude lists cases (CSV names) left out of
# the plot.
set -euo pipefail
command -v gnuplot >/dev/null 2>&1 || {
    echo "plots: gnuplot is missing; install it with: sudo apt-get install gnuplot-nox" >&2
    exit 1
}
data=${DATA_DIR:-docs/data}
img=${IMG_DIR:-docs/img}
mkdir -p "$img"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# a rung's legend: its name from the lab's LADDER when the CSV names it by
# its variable (VAR=k, as bench.sh writes when LADDER has no name for it)
label() {
    local code=$1 n=""
    if [ -n "$ladder" ] && [[ $code =~ ^([A-Z0-9_]+)=([0-9]+)$ ]]; then
        n=$(awk -v v="${BASH_REMATCH[1]}" -v k="${BASH_REMATCH[2]}" '
            $1 == "name" && $2 == v && $3 == k {
                sub(/^[^"]*"/, ""); sub(/"[^"]*$/, ""); print; exit }' "$ladder")
    fi
    printf '%s' "${n:-$code}"
}
for csv in "$data"/lab*.csv; do
    [ -f "$csv" ] || continue
    lab=$(basename "$csv" .csv)
    ladder=$(ls solutions/"${lab#lab}"-*/LADDER 2>/dev/null | head -n 1 || true)
    caption=$(sed -n '1s/^# //p' "$csv" | cut -d, -f1,2)
    unit=$(case $lab in lab03|lab05|lab06) echo "TFLOP/s";; *) echo "GB/s";; esac)
    xunit=$(case $lab in lab03|lab05|lab06) echo "FLOPs per call";; *) echo "bytes per call";; esac)
    groups=$(awk -F, '!/^#/ && $1 != "lab" { split($3, p, ":"); print (length(p) > 1 ? p[1] : "all") }' "$csv" | sort -u)
    for grp in $groups; do
        out="$img/$lab.png"
        part=""
        [ "$grp" = all ] || part=" part $grp"
        [ "$(echo "$groups" | wc -w)" -gt 1 ] && out="$img/$lab-$grp.png"
        excl="$data/$lab.exclude" # cases off the sweep's curve, one a line
        sel() { awk -F, -v g="$grp" -v ex="$excl" '
            BEGIN { while ((getline l < ex) > 0) skip[l] = 1 }
            !/^#/ && $1 != "lab" && !($3 in skip) {
            split($3, p, ":"); if ((length(p) > 1 ? p[1] : "all") == g) print }' "$csv"; }
        # the codes (rung names, which may hold spaces), in order of first use
        plot=""
        i=0
        while IFS= read -r code; do
            [ -n "$code" ] || continue
            sel | awk -F, -v c="$code" '$2 == c { print $4, $8 }' | sort -g > "$tmp/$i.dat"
            name=$(label "$code")
            plot="$plot '$tmp/$i.dat' using 1:2 with linespoints title '${name//\'/_}',"
            i=$((i + 1))
        done < <(sel | cut -d, -f2 | awk '!seen[$0]++')
        sel | awk -F, '{ print $4, $9 }' | sort -g | awk '!seen[$1]++' > "$tmp/base.dat"
        plot="$plot '$tmp/base.dat' using 1:2 with lines dashtype 2 lw 2 lc rgb 'black' title 'baseline',"
        if sel | awk -F, '$10 > 0 { found = 1 } END { exit !found }'; then
            sel | awk -F, '$10 > 0 { print $4, $10 }' | sort -g | awk '!seen[$1]++' > "$tmp/ceil.dat"
            plot="$plot '$tmp/ceil.dat' using 1:2 with lines dashtype 3 lw 2 lc rgb 'gray40' title 'memcpy ceiling',"
        fi
        gnuplot <<GP
set terminal pngcairo size 900,640 font "sans,10" noenhanced
set output '$out'
set title "${lab/lab/Lab }$part: ${caption//\"/}" noenhanced
set logscale x
set format x "%.0s %c"
set xlabel "$xunit"
set ylabel "$unit"
set key below left Left reverse maxcols 2
set grid
# from zero, with headroom above the highest curve (the ceiling is often it)
set yrange [0:*]
set offsets 0, 0, graph 0.08, 0
plot ${plot%,}
GP
        echo "plots: $out"
    done
done
