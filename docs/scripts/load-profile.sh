#!/usr/bin/env bash
# load-profile.sh: what the commands look like under load. For each database
# and command: a board with 10 workers on 5 connections pinned to CPU 0,
# 50 clients of the lab's load tool on CPU 1 for 16 s; from second 3 a 10 s
# CPU profile and a 10 s fgprof profile at the same time, at second 7
# /debug/goroutines. Prints one table row per reading.
#
#   bash docs/scripts/load-profile.sh [OUTDIR]   (BBS_PG_DSN overrides the PostgreSQL URL)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-$(mktemp -d)}
mkdir -p "$out"
pg=${BBS_PG_DSN:-postgres://root@127.0.0.1:5432/test?sslmode=disable}
go build -o "$out/bbs" ./cmd/bbs
go build -o "$out/loadtest" ./cmd/loadtest

cum() { # cum PROFILE FRAME: milliseconds under FRAME among the handler's samples
  go tool pprof -unit=ms -top -cum -focus='handleBoard' "$1" 2>/dev/null |
    awk -v f="$2" 'NF >= 6 && $4 ~ /ms$/ && $NF ~ f { v=$4; sub("ms","",v); print v; found=1; exit } END { if (!found) print 0 }'
}
share() { # share PROFILE FRAME: percent of the handler's time under FRAME
  awk -v a="$(cum "$1" "$2")" -v b="$(cum "$1" 'handleBoard')" 'BEGIN { printf "%.1f", (b > 0) ? 100 * a / b : 0 }'
}
for db in sqlite postgres; do
  for cmd in EachGetView AllView; do
    tag=$db-$cmd
    dbargs=(-dsn "$out/$tag.db")
    [ "$db" = postgres ] && dbargs=(-db postgres -dsn "$pg")
    taskset -c 0 "$out/bbs" "${dbargs[@]}" -addr 127.0.0.1:18080 -admin-addr 127.0.0.1:16060 \
      -workers 10 -pool 5 >"$out/$tag.log" 2>&1 &
    srv=$!
    for _ in $(seq 1 100); do curl -sf http://127.0.0.1:16060/readyz >/dev/null && break; sleep 0.1; done
    taskset -c 1 "$out/loadtest" run -url "http://127.0.0.1:18080/bbs?cmd=$cmd" -clients 50 \
      -warmup 0s -duration 16s -progress off -out "$out/$tag.json" >"$out/$tag.run.txt" &
    gen=$!
    sleep 3
    curl -s -o "$out/$tag.cpu.pb.gz" 'http://127.0.0.1:16060/debug/pprof/profile?seconds=10' &
    cpu=$!
    curl -s -o "$out/$tag.fg.pb.gz" 'http://127.0.0.1:16060/debug/fgprof?seconds=10' &
    fg=$!
    sleep 4
    curl -s -o "$out/$tag.goroutines.txt" 'http://127.0.0.1:16060/debug/goroutines'
    wait "$gen" "$cpu" "$fg"
    kill "$srv"; wait "$srv" 2>/dev/null || true
    tput=$(grep -o '"throughput": *[0-9.]*' "$out/$tag.json" | head -1 | grep -o '[0-9.]*$')
    printf '%s\tthroughput %s/s\n' "$tag" "$tput"
    printf '%s\tcpu handler ms\t%s\n' "$tag" "$(cum "$out/$tag.cpu.pb.gz" 'handleBoard')"
    for f in 'renderPosts' 'PostList' 'commands.inSQL' 'commands.acquireConn' 'driverkit.networkWait' 'runtime.cgocall' 'awaitDone'; do
      printf '%s\tcpu %% %s\t%s\n' "$tag" "$f" "$(share "$out/$tag.cpu.pb.gz" "$f")"
    done
    for f in 'waitForWorker' 'commands.acquireConn' 'commands.inSQL' 'renderPosts'; do
      printf '%s\tfgprof %% %s\t%s\n' "$tag" "$f" "$(share "$out/$tag.fg.pb.gz" "$f")"
    done
    sed -n '1,8p' "$out/$tag.goroutines.txt" | sed "s/^/$tag\tdump /"
  done
done
echo "files in $out"
