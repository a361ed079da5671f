package config

// Distance puts the database at a distance from the board: each statement
// waits off the CPU while it holds its connection. It stands for the
// off-CPU time of the article's requests: its database (Cloudscape, through
// the embedded driver in WebLogic's own JVM) kept the execute threads off
// the CPU about 7 x as long as on it (graph 1: 5 threads busy at ~60 %
// CPU), where the board's in-process SQLite keeps them on it. It is
// embedded in Config, so its keys are top-level keys of the TOML file.
// Zero everywhere (the default) adds nothing; knob.Board bounds them.
type Distance struct {
	DBLatency       Duration `toml:"db_latency"`        // each statement's wait while its connection is held
	DBLatencyJitter Duration `toml:"db_latency_jitter"` // its spread: uniform over latency ± jitter, as toxiproxy's latency toxic
	ConnectLatency  Duration `toml:"connect_latency"`   // added to opening each physical connection (TCP, authentication, backend start)
}
