// Package room collects a workshop room's results on one page: the
// instructor serves it on the venue's network, each laptop posts the
// result file of a `loadtest experiment`, `run`, `sweep` or `tune`, and
// the page shows every laptop's machine, the claims each decided (claim
// by laptop, disagreements marked, each verdict with the readings behind
// it) and the throughput curves overlaid across laptops:
//
//	r, err := room.Open(room.Options{Dir: "room", Token: token})
//	http.ListenAndServe(":8099", r.Handler())
//
//	rec, err := room.Send(ctx, "out/article/experiment.json", room.SendOptions{URL: "http://10.0.0.5:8099", Token: token})
//
// An upload is POST /upload with "Authorization: Bearer TOKEN" and the
// laptop's name in X-Laptop; the body is the result file as the tool
// wrote it, read with loadtest/resultfile's readers and the experiment's
// and the tuner's JSON types. Each accepted upload is written to its own
// file in Dir (a temporary file, synced, renamed) before it is
// acknowledged, and Open reads them all again, so the room survives a
// restart. An upload too large, too frequent (per laptop's address), not
// JSON, of the wrong shape or cut short is refused with a 4xx status and
// a sentence saying why; nothing received before is touched.
//
// GET / is the page (refreshing itself every few seconds), GET /room.json
// the same content as JSON, GET /chart/ID a throughput chart (SVG,
// loadtest/chart). Send posts a file with a bounded number of retries,
// leaving the file where it is; ResendHint says how to send it by hand.
package room
