//go:build !unix

package machine

import "time"

// processTimes has no getrusage to read off Unix. It is never reached
// there in practice: the Sampler stops at the missing /proc/stat first, and
// its Reading says the machine readings are unavailable.
func processTimes() (user, system time.Duration) { return 0, 0 }
