//go:build bindrace_regress_leak && !bindrace_regress && !bindrace_regress_syscall

package main

import "github.com/bindrace/bindrace/binding"

// leakBytes is what every ping keeps for good: a leak of 1 KiB a response, about 100 MiB per
// 100,000 responses. The candidate the rss-growth counts must catch and the instruction counts
// barely see (a copy of 1 KiB). Only tests and docs build it (-tags
// bindrace_release,bindrace_regress_leak); no make target ships it.
const leakBytes = 1 << 10

// leaked holds every block, so the collector never gives one back.
var leaked [][]byte

// regress keeps a block and writes to it: a fresh span from the OS is zero already, and a block
// never touched would cost no resident memory.
func regress(*binding.Request) {
	b := make([]byte, leakBytes)
	b[0] = 1
	leaked = append(leaked, b)
}
