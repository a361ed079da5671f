// Package chart draws load-test results as SVG and PNG charts with gonum
// plot, the only package of the module that imports it: throughput and
// response time against clients (WriteSweepCharts), per-second timelines
// (WriteTimelineCharts), the first requests of a cold start
// (WriteColdStartChart), latency by percentile (WriteDistributionChart),
// runs side by side (WriteBarCharts) and repeated figures with their
// ranges (WriteSpreadChart, loadtest.Spread).
//
// The server charts draw the stats the caller places on them
// (Server: watch.Chart and watch.Stat.Chart), never a stat by name.
//
// Files: chart.go (sweep and timeline charts, shared drawing),
// servercharts.go (server and cold-start charts), experiment.go
// (distribution, bars, spreads).
package chart
