# SPDX-License-Identifier: MIT
# A 5 ms peak between idle stretches: sampling every 0.1 s usually misses it,
# the reported kernel high-water mark never does.
. "$(dirname "$0")/_lib.sh"
MIB=200
"$GT_BIN" --st=0.1 --ru=bytes -f json -- "$W/spike" $MIB 5 300 >out.txt
json_report out.txt >r.json
N=$((MIB * 1048576))
within "$(jget r.json .peak_ram.main)" "$N" $((N * 110 / 100)) "exact peak"
