# SPDX-License-Identifier: MIT
# --metrics: a direct scrape checked against the exposition format, then a
# real Prometheus server on loopback scraping every 100 ms while a workload
# holds 64 MiB; its HTTP API must return the series with that value.
. "$(dirname "$0")/_lib.sh"
command -v prometheus >/dev/null || fail "prometheus is not installed (scripts/setup-deps.sh)"
MIB=$((1024 * 1024))
pids=()
stop_all() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; cleanup; }
trap stop_all EXIT

: >err.txt # polled below, maybe before the background job has opened it
"$GT_BIN" --st=0.1 --disable-logs --metrics=127.0.0.1:0 -o report.txt -- "$W/touch_mem" 64 file=never >out.txt 2>err.txt &
gt=$!
pids+=("$gt")
wait_metrics_address

# Direct scrape: wait until the workload's 64 MiB shows and CPU percents
# are out (a sample has none until the CPU window spans 0.25 s: the first
# scrapes lack that family, as they must), then check format.
scraped() {
    curl -sf -D head.txt -o body.txt "http://$addr/metrics" || return 1
    main=$(awk '$1 == "gpu_tracker_ram_bytes{set=\"main\"}" { print $2 }' body.txt)
    [ "${main:-0}" -ge $((64 * MIB)) ] && grep -q '^gpu_tracker_cpu_utilization_percent{' body.txt
}
wait_for scraped
within "$main" $((64 * MIB)) $((90 * MIB)) "scraped main RAM"
grep -qi '^content-type: text/plain; version=0.0.4' head.txt || fail "content type: $(cat head.txt)"
promtool check metrics <body.txt || fail "promtool rejects the exposition"
for m in gpu_tracker_ram_bytes gpu_tracker_cpu_seconds_total gpu_tracker_cpu_utilization_percent \
    gpu_tracker_threads gpu_tracker_samples_total gpu_tracker_elapsed_seconds; do
    grep -q "^# TYPE $m " body.txt || fail "no TYPE line for $m"
done
grep -q '^gpu_tracker_ram_bytes{set="combined"} ' body.txt || fail "no combined RAM"
# Not available is not zero: without a GPU there is no GPU series at all.
grep -q '^gpu_tracker_gpu' body.txt && fail "GPU series without a GPU"
# OpenMetrics when asked for it.
curl -sf -D head.txt -o om.txt -H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;q=0.5' \
    "http://$addr/metrics"
grep -qi '^content-type: application/openmetrics-text; version=1.0.0' head.txt || fail "OpenMetrics content type"
[ "$(tail -n1 om.txt)" = "# EOF" ] || fail "OpenMetrics text does not end with # EOF"
grep -q '^# TYPE gpu_tracker_cpu_seconds counter$' om.txt || fail "OpenMetrics counter family name"
grep -q '^gpu_tracker_cpu_seconds_total{set="main"} ' om.txt || fail "OpenMetrics counter sample"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://$addr/nothing")" = 404 ] || fail "unknown path is not 404"

# A second tracker on the same port: a clear error at start, nothing run.
set +e
"$GT_BIN" --metrics="$addr" -- touch ran.txt >out2.txt 2>err2.txt
rc=$?
set -e
[ "$rc" = 2 ] || fail "port in use: exit status $rc"
grep -q "already in use" err2.txt || fail "port in use: $(cat err2.txt)"
[ ! -e ran.txt ] || fail "the command ran although the port was in use"

# A real Prometheus scraping every 100 ms.
pp=""
for _ in $(seq 20); do
    c=$((20000 + RANDOM % 30000))
    (exec 3<>"/dev/tcp/127.0.0.1/$c") 2>/dev/null || { pp=$c; break; } # nothing listens there
done
cat >prom.yml <<YML
global:
  scrape_interval: 100ms
  scrape_timeout: 100ms
scrape_configs:
  - job_name: gpu-tracker
    static_configs:
      - targets: ['$addr']
YML
prometheus --config.file=prom.yml --storage.tsdb.path=tsdb --web.listen-address="127.0.0.1:$pp" \
    >prom.log 2>&1 &
pids+=("$!")
query() { curl -sf "http://127.0.0.1:$pp/api/v1/query" --data-urlencode "query=$1"; }
# Scrapes that a loaded machine makes time out are retried at the next
# interval: the test waits for ten that succeeded.
stored() {
    val=$(query 'gpu_tracker_ram_bytes{job="gpu-tracker",set="main"}' | jq -r '.data.result[0].value[1] // empty')
    [ -n "$val" ] && [ "$(query 'count_over_time(gpu_tracker_samples_total[1m])' |
        jq -r '.data.result[0].value[1] // 0')" -ge 10 ]
}
wait_for stored
within "$val" $((64 * MIB)) $((90 * MIB)) "main RAM in Prometheus"
n=$(query 'count_over_time(gpu_tracker_samples_total[1m])' | jq -r '.data.result[0].value[1]')
[ "$n" -ge 10 ] || fail "only $n scrapes stored"
[ "$(query 'up{job="gpu-tracker"}' | jq -r '.data.result[0].value[1]')" = 1 ] || fail "target not up"
[ "$(query 'gpu_tracker_ram_bytes' | jq '.data.result | length')" = 4 ] || fail "not 4 RAM series"
cpu=$(query 'gpu_tracker_cpu_seconds_total{set="combined"}' | jq -r '.data.result[0].value[1]')
# touch_mem writes 64 MiB (CPU time well above zero) and then sleeps.
within "$cpu" 0.000001 5 "CPU seconds counter"

# The tracker still ends cleanly with its report when stopped, although a
# client holds a connection open without sending a request: the command
# dies of the forwarded SIGTERM, and that is the exit status.
exec 5<>"/dev/tcp/${addr%:*}/${addr##*:}"
kill -TERM "$gt"
rc=0
wait "$gt" || rc=$?
exec 5>&-
[ "$rc" = 143 ] || fail "exit status $rc after SIGTERM, not 143: $(cat err.txt)"
grep -q "Resource tracking complete" out.txt || fail "no completion line after SIGTERM"
grep -q "Max RAM" report.txt || fail "no report after SIGTERM"
