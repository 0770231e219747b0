# SPDX-License-Identifier: MIT
# A grandchild orphaned by its parent stays in the tracked tree.
. "$(dirname "$0")/_lib.sh"
MIB=50
"$GT_BIN" --st=0.05 --ru=bytes -f json -- "$W/orphan" 1 $MIB >out.txt
json_report out.txt >r.json
N=$((MIB * 1048576))
within "$(jget r.json .max_ram.descendants.private_rss)" $((N * 97 / 100)) $((N * 115 / 100)) "orphan's memory"
