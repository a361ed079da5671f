// Package measure holds the rules every measuring planner of the load tool
// shares: whether a measurement was disturbed by other work on the machine
// (Judge, against a Baseline), whether it was slow without a reading of
// other work (Suspect), how much time re-measures may take (Budget), when
// two figures differ beyond the noise (Band, Beyond, Differ, Ratios,
// Control), and the order in which settings are measured side by side
// (Rounds). Its thresholds are one configuration, Rules. Planners (the
// experiment runner, the tuner) choose what to measure; this package says
// whether a measurement stands and what a comparison says.
package measure
