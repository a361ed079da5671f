package bbs

import (
	"strings"

	"bbslab/entity"
	"bbslab/machine"
)

// SystemStats is the system's part of /admin/stats at the moment of the
// request: what sar, vmstat and netstat showed in the article, and the Go
// runtime.
type SystemStats struct {
	Machine     machine.Reading `json:"machine"`
	Connections ConnectionStats `json:"connections"`
	Runtime     RuntimeStats    `json:"runtime"`
}

// ConnectionStats counts TCP sockets by state on the public port and to
// the database server.
type ConnectionStats struct {
	Server   *machine.Sockets `json:"server,omitempty"`   // local port = the public listener's
	Database *machine.Sockets `json:"database,omitempty"` // remote port = the database server's
	Note     string           `json:"note,omitempty"`     // why a part is missing
}

// RuntimeStats is the Go runtime's state, read with runtime/metrics (which
// does not stop the world).
type RuntimeStats struct {
	Goroutines       uint64 `json:"goroutines"`
	Threads          uint64 `json:"threads"` // OS threads; cgo calls (SQLite) hold one each
	GOMAXPROCS       uint64 `json:"gomaxprocs"`
	GCCycles         uint64 `json:"gc_cycles"`
	HeapLiveBytes    uint64 `json:"heap_live_bytes"`
	MemoryTotalBytes uint64 `json:"memory_total_bytes"` // all memory the runtime maps
	CgoCalls         uint64 `json:"cgo_calls"`
	// SchedLatency is the time goroutines spent runnable, waiting for a
	// CPU, since start (the sum of the runtime's /sched/latencies
	// histogram, each bucket counted at its midpoint): per request, where
	// time goes when the server's CPU is full and nothing else is waited
	// for. SchedLatencies is the number of such waits.
	SchedLatencySecondsTotal float64 `json:"sched_latency_seconds_total"`
	SchedLatencies           uint64  `json:"sched_latencies_total"`
	// ProcessCPUSecondsTotal is the CPU time the board has used since
	// start, user and system (getrusage; GetProcessTimes on Windows): its
	// rate over a span is the board's CPU over exactly that span. Absent
	// where the platform does not give it.
	ProcessCPUSecondsTotal *float64 `json:"process_cpu_seconds_total,omitempty"`
}

// readRuntime reads the runtime part of SystemStats (machine.ReadRuntime).
func readRuntime() RuntimeStats {
	m := machine.ReadRuntime()
	r := RuntimeStats{
		Goroutines: m.Goroutines, Threads: m.Threads, GOMAXPROCS: m.GOMAXPROCS, GCCycles: m.GCCycles,
		HeapLiveBytes: m.HeapLiveBytes, MemoryTotalBytes: m.MemoryTotalBytes, CgoCalls: m.CgoCalls,
	}
	r.SchedLatencySecondsTotal, r.SchedLatencies = machine.HistogramSum(m.SchedLatencies)
	if cpu, ok := machine.ProcessCPUTime(); ok {
		sec := cpu.Seconds()
		r.ProcessCPUSecondsTotal = &sec
	}
	return r
}

// databaseSockets counts the board's own sockets to the database server in
// every state. A store that remembers the local ports of its connections
// (entity.SocketOwner, the PostgreSQL store) is matched by port, which
// also finds the connections it closed: in TIME_WAIT they belong to no
// process, and a board without a pool makes one per acquire (the article's
// netstat). Any other store is matched by this process's open sockets.
func (s *Server) databaseSockets() (machine.Sockets, error) {
	if o, ok := s.opt.Store.(entity.SocketOwner); ok {
		return machine.RemotePortFrom(s.opt.DBPort, o.LocalPorts())
	}
	return machine.OwnRemotePort(s.opt.DBPort)
}

// systemStats reads the machine, the sockets and the runtime now.
func (s *Server) systemStats() SystemStats {
	r := SystemStats{Runtime: readRuntime(), Connections: s.connections()}
	if s.opt.Machine != nil {
		r.Machine = s.opt.Machine.Read()
	} else {
		r.Machine = machine.Reading{Error: "no machine sampler is running"}
	}
	return r
}

// connections counts the public port's and the database's sockets now.
func (s *Server) connections() ConnectionStats {
	var c ConnectionStats
	var notes []string
	if s.opt.ServerPort > 0 {
		if sk, err := machine.LocalPort(s.opt.ServerPort); err == nil {
			c.Server = &sk
		} else {
			notes = append(notes, "server sockets: "+err.Error())
		}
	} else {
		notes = append(notes, "server port unknown")
	}
	switch {
	case s.opt.DBPort > 0:
		if sk, err := s.databaseSockets(); err == nil {
			c.Database = &sk
		} else {
			notes = append(notes, "database sockets: "+err.Error())
		}
	case s.opt.DBName == "sqlite":
		notes = append(notes, "SQLite runs inside this process: there are no database sockets")
	default:
		notes = append(notes, "database port unknown (a Unix socket, or not given)")
	}
	c.Note = strings.Join(notes, "; ")
	return c
}
