//go:build !race

package main

// raceEnabled reports whether the tests run with -race.
const raceEnabled = false
