package main

import (
	"log/slog"
	"runtime/debug"

	"bbslab/config"
	"bbslab/machine"
)

// applyGC sets the GC percent and the soft memory limit that the gogc and
// gomemlimit knobs ask for, leaving the runtime's own (GOGC, GOMEMLIMIT or
// their defaults) where a knob is unset, and logs what is in force. The
// returned function restores the previous settings; serve calls it on exit
// so that a test running serve in-process gets its own settings back.
func applyGC(l config.Latency, log *slog.Logger) (restore func()) {
	var undo []func()
	if l.GOGC != 0 {
		prev := debug.SetGCPercent(l.GOGC) // -1 turns the collector off
		undo = append(undo, func() { debug.SetGCPercent(prev) })
	}
	if l.GOMemLimit > 0 {
		prev := debug.SetMemoryLimit(int64(l.GOMemLimit))
		undo = append(undo, func() { debug.SetMemoryLimit(prev) })
	}
	g := machine.ReadRuntime() // reading changes nothing
	log.Info("gc settings", "gogc", g.GOGCPercent, "gomemlimit_bytes", g.MemoryLimitBytes,
		"from_knobs", l.GOGC != 0 || l.GOMemLimit > 0)
	return func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
}
