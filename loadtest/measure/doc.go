// Package measure holds the rules every measuring planner of the load tool
// shares: when a measurement was disturbed by other work on the machine
// (Judge, against a Baseline of the cores' interference), when it was
// slow without a reading of other work (Suspect: its CPU per request off
// the setting's other measurements), how much extra measuring time
// re-measures may take (Budget), when two figures differ beyond the noise
// (Band, Beyond, Differ, Ratios, Control), and the order in which settings
// are measured side by side (Rounds). The experiment runner and the tuner
// are planners on top of it: they choose what to measure next; this
// package says whether a measurement stands and what a comparison says.
// Its thresholds are one configuration, Rules, read from a file's
// [disturbance] section.
//
// The nouns (docs/layout.md): a setting is what is measured (a run's
// server and knobs at a client count); a measurement is one timed span
// of load on a setting; an attempt is a measurement that may be judged
// disturbed and taken again; the repeats of a setting are its used
// measurements; a round measures each of several settings once, side by
// side.
//
// It knows nothing of the board, nor of experiment files or tunings.
package measure
