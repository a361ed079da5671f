// Package resultfile reads the files of results the load tool compares,
// and writes the files of a run other than its JSON result:
//
//	runs, err := resultfile.Read("sweep.json") // a run, a sweep, an experiment.json or a JTL file
//	res, err := resultfile.ReadJTL("jmeter.jtl")
//	err = resultfile.WriteSeriesCSV(f, res.Series)
//
// Read takes this lab's JSON (a run, a sweep, an experiment's points;
// schema version 1 too, upgraded) and JMeter's CSV results (JTL), written
// by JMeter or by the engine (loadtest.Settings.JTL). A JTL file carries
// no comment JMeter would accept, so the run's environment is kept beside
// it (JTLEnvironmentPath, WriteJTLEnvironment) and read back with it.
package resultfile
