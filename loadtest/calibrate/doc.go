// Package calibrate finds the wait per unit of work that puts a server on
// an operating point on the machine at hand, as "loadtest calibrate" and an
// experiment's [calibrate] do:
//
//	spec := calibrate.Spec{Var: "db_latency", Clients: 10, Reading: []string{"cpu"}, CPU: "cpu", Target: 60, Tolerance: 3, Relative: true, Ratio: 7.33}
//	errs := spec.Check(func(key string) string { return "calibrate." + key })
//	cal, err := calibrate.Run(ctx, spec, measure, log.Printf)
//
// The package knows no server, no experiment file and no board.
package calibrate
