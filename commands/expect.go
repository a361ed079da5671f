package commands

// Expect returns the SQL statements and pool acquires the command makes
// when it returns found posts of the n asked for, after storing a posted
// message when posted is true. It is the pattern the X-BBS-Queries and
// X-BBS-Acquires headers report and the board's tools check (package
// loadtest/contract); TestExpectMatchesRun holds it to what Run does.
//
// The insert takes a connection and a statement of its own. AllView reads
// every post in one query on one connection. OnceGetView and EachGetView
// look up the post below the last one found until they have n; on a board
// holding fewer than n posts their last lookup finds nothing and still
// counts, with its own acquire for EachGetView.
func (v *View) Expect(found, n int, posted bool) (queries, acquires int) {
	lookups := found
	if found < n {
		lookups++ // the lookup that found no post
	}
	switch v {
	case OnceGetView:
		queries, acquires = lookups, 1
	case EachGetView:
		queries, acquires = lookups, lookups
	default: // AllView
		queries, acquires = 1, 1
	}
	if posted {
		queries++
		acquires++
	}
	return queries, acquires
}
