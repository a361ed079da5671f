// Package chart draws load-test results as SVG and PNG charts with gonum
// plot, the only package of the module that imports it:
//
//	files, err := chart.WriteSweepCharts("out/article", []chart.Curve{{Name: "before", Runs: runs}}, chart.Server{})
//
// It draws throughput and response time against clients
// (WriteSweepCharts), per-second timelines (WriteTimelineCharts), the first
// requests of a cold start (WriteColdStartChart), latency by percentile
// (WriteDistributionChart), runs side by side (WriteBarCharts) and repeated
// figures with their ranges (WriteSpreadChart, loadtest.Spread). Each
// writer returns the files it wrote.
//
// The server charts draw the stats the caller places on them (Server:
// watch.Chart and watch.Stat.Chart), never a stat by name.
package chart
