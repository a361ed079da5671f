#!/bin/sh
# h2load-to-generic.sh: h2load's per-request log (--log-file, nghttp2 1.52:
# tab-separated start time in microseconds since the epoch, HTTP status or
# -1 for a failed stream, microseconds to the end of the response) to the
# grader's generic CSV (docs/grading.md). A line it cannot read is an error.
#
#   sh docs/scripts/h2load-to-generic.sh < h2load.log > h2load.csv
exec awk -F '\t' '
BEGIN { OFS = ","; print "start_unix_us,latency_us,status,error" }
NF < 3 || $1 !~ /^[0-9]+$/ || $2 !~ /^(-1|[0-9]+)$/ || $3 !~ /^[0-9]+$/ {
  printf "h2load-to-generic: line %d: want start_us<TAB>status<TAB>latency_us: %s\n", NR, $0 > "/dev/stderr"
  bad = 1; next
}
$2 == -1 { print $1, $3, 0, "h2load: stream failed"; next }
{ print $1, $3, $2, "" }
END { exit bad }'
