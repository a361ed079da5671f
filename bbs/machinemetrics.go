package bbs

import (
	"github.com/prometheus/client_golang/prometheus"

	"bbslab/machine"
)

// machineCollector reads, at scrape time, the counters behind the machine,
// connections and runtime parts of /admin/stats (system.go): the same
// sources, as cumulative counters, so that a rate() over a span is what
// the watcher derives from /admin/stats over that span. What the platform
// lacks is left out, never sent as 0: the CPU modes an OS does not count,
// steal off Linux, the own CPUs where the affinity read failed, the
// sockets off Linux.
type machineCollector struct{ s *Server }

var (
	descMachineCPU   = prometheus.NewDesc("bbs_machine_cpu_seconds_total", "CPU seconds of the whole machine since boot, summed over its CPUs, by mode (the modes the OS counts: all of user, nice, system, idle, iowait, irq, softirq, steal on Linux); node_exporter's node_cpu_seconds_total summed over cpu. Not exported without a machine sampler.", []string{"mode"}, nil)
	descMachineCPUs  = prometheus.NewDesc("bbs_machine_cpus", "CPUs of the machine: rate(bbs_machine_cpu_seconds_total{mode=\"idle\"}) / bbs_machine_cpus is the idle fraction.", nil, nil)
	descOwnBusy      = prometheus.NewDesc("bbs_own_cpus_busy_seconds_total", "Busy seconds (neither idle nor I/O wait), summed over the CPUs the board may run on (its affinity; all CPUs off Linux, where it is not read), whoever kept them busy: rate() / bbs_own_cpus is /admin/stats machine.own_cpus.busy as a fraction.", nil, nil)
	descOwnCPUs      = prometheus.NewDesc("bbs_own_cpus", "CPUs the board may run on (its affinity; all CPUs off Linux).", nil, nil)
	descOwnInterf    = prometheus.NewDesc("bbs_own_cpus_interference_seconds_total", "Seconds of the board's CPUs (bbs_own_cpus) that something other than the board used: their busy seconds minus the board's CPU seconds (other processes, kernel work not charged to it, the hypervisor's steal), read at the same moment and held from going down by the tick counters' rounding: rate() * 100 is /admin/stats machine.own_cpus.interference in % of one core.", nil, nil)
	descOwnSteal     = prometheus.NewDesc("bbs_own_cpus_steal_seconds_total", "Seconds the hypervisor took from the board's CPUs (steal, part of the interference), summed over them. Linux only (where the kernel counts steal).", nil, nil)
	descSchedLatency = prometheus.NewDesc("bbs_sched_latency_seconds_total", "Time goroutines spent runnable, waiting for a CPU, since start: the sum of the runtime's /sched/latencies histogram, each bucket at its midpoint (/admin/stats runtime.sched_latency_seconds_total).", nil, nil)
	descConnections  = prometheus.NewDesc("bbs_connections", "TCP sockets now by state: side=server on the public port, side=database to the database server (/admin/stats connections). Linux only.", []string{"side", "state"}, nil)
	descAcceptQueue  = prometheus.NewDesc("bbs_listen_accept_queue", "Connections the kernel completed on the public listener that the board has not accepted yet. Linux only.", nil, nil)
	machineDescs     = []*prometheus.Desc{descMachineCPU, descMachineCPUs, descOwnBusy, descOwnCPUs, descOwnInterf, descOwnSteal, descSchedLatency, descConnections, descAcceptQueue}
)

// Describe sends the descriptions of the machine metrics.
func (c *machineCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range machineDescs {
		ch <- d
	}
}

// Collect reads the machine's CPU counters, the runtime's scheduling
// latency and the sockets now.
func (c *machineCollector) Collect(ch chan<- prometheus.Metric) {
	if c.s.opt.Machine != nil {
		if mc, err := c.s.opt.Machine.Counters(); err == nil {
			for _, m := range mc.Modes {
				counter(ch, descMachineCPU, m.Seconds, m.Mode)
			}
			gauge(ch, descMachineCPUs, float64(mc.CPUs))
			if o := mc.Own; o != nil {
				counter(ch, descOwnBusy, o.BusySeconds)
				gauge(ch, descOwnCPUs, float64(len(o.CPUs)))
				if o.InterferenceSeconds != nil {
					counter(ch, descOwnInterf, *o.InterferenceSeconds)
				}
				if o.StealSeconds != nil {
					counter(ch, descOwnSteal, *o.StealSeconds)
				}
			}
		}
	}
	lat, _ := machine.HistogramSum(machine.ReadRuntime().SchedLatencies)
	counter(ch, descSchedLatency, lat)
	conns := c.s.connections()
	for _, side := range []struct {
		name string
		sk   *machine.Sockets
	}{{"server", conns.Server}, {"database", conns.Database}} {
		if side.sk == nil {
			continue
		}
		for state, n := range side.sk.States {
			gauge(ch, descConnections, float64(n), side.name, state)
		}
	}
	if conns.Server != nil && conns.Server.Listen != nil {
		gauge(ch, descAcceptQueue, float64(conns.Server.Listen.AcceptQueue))
	}
}
