// Package chart draws load-test results as SVG and PNG charts with gonum
// plot, the only package of the module that imports it:
//
//	files, err := chart.WriteSweepCharts("out/article", []chart.Curve{{Name: "before", Runs: runs}}, chart.Server{})
//
// The server charts draw the stats the caller places on them, never by name.
package chart
