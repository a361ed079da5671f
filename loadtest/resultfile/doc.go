// Package resultfile reads the files of results the load tool compares,
// and writes the files of a run other than its JSON result:
//
//	runs, err := resultfile.Read("sweep.json") // a run, a sweep, an experiment.json or a JTL file
//	res, err := resultfile.ReadJTL("jmeter.jtl")
//	err = resultfile.WriteSeriesCSV(f, res.Series)
//
// Read takes this lab's JSON (a run, a sweep, an experiment's points; schema
// version 1 upgraded) and JMeter's CSV results (JTL), the run's environment beside it.
package resultfile
