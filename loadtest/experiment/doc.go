// Package experiment runs an experiment described in a TOML file
// (loadtest/experiments/*.toml): for each run it starts a server process,
// waits until it is ready, resets and validates it, measures each client
// count (repeatedly, runs in turn or interleaved) with the loadtest engine
// while package watch polls the server's stats and profiles it, stops the
// server, then judges the claims the file makes and writes a report folder
// (experiment.json, report.md, the charts of package chart and index.html:
// the live dashboard's page with every second inlined and the report's
// sections below it). As it goes it feeds the live dashboard (package
// live, through live/feed): every second of load, each step and the claims
// decidable so far. A step during which other work on the machine took the
// server's cores beyond the baseline (or whose CPU per request is off its
// point's other repeats) is measured again, kept in the results and left
// out of the figures and the claims.
//
// The runner is generic: what it knows of its target comes in
// Options.Target, one watch.Target (its validation, stats, environment,
// charts, start hint, disk table, request states and limits); for the
// board cmd/loadtest passes contract.Board from package loadtest/contract.
//
// Files: experiment.go (the file format, Load), run.go
// (Run, one measurement), process.go (the server process:
// start, readiness, stop; a child process of package child), pin.go
// (holding the server and the generator to their CPUs through package
// child, and the notes that say how), repeat.go (repeats and their
// spread), claim.go (claims and their checks), verdict.go (the findings in
// plain words), report.go and tables.go (report.md and index.html),
// environment.go (the environment section), disk.go (the disk benchmark
// command), quick.go (quick runs), filefunc.go ({{env}} in files),
// redact.go (passwords out of logs), dashboard.go (the live dashboard's
// progress and claims, the progress line), disturbance.go (when a step is
// disturbed), remeasure.go (measuring it again), recalibrate.go (the
// calibration redone between sweeps).
package experiment
