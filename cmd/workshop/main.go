// Command workshop is the instructor's and the attendee's tool for a
// workshop day: "workshop doctor" checks a laptop before the day,
// "workshop room" collects the room's results on one page.
package main

import (
	"fmt"
	"os"
	"sort"
)

// commands maps a subcommand to its main; each file registers its own.
var commands = map[string]func(args []string) int{}

func main() {
	if len(os.Args) < 2 || commands[os.Args[1]] == nil {
		names := make([]string, 0, len(commands))
		for n := range commands {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(os.Stderr, "usage: workshop COMMAND [flags]\ncommands: %v\n", names)
		os.Exit(2)
	}
	os.Exit(commands[os.Args[1]](os.Args[2:]))
}
