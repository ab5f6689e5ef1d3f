//go:build bindrace_regress_syscall && !bindrace_regress

package main

import (
	"syscall"

	"github.com/bindrace/bindrace/binding"
)

// regress makes every ping one system call more, and almost nothing else: getppid, the
// cheapest there is, entered straight from Go (RawSyscall: no scheduler hand-off), so its
// user-space instructions are a handful while the kernel's entry and exit run once more per
// response. The candidate the system-call counts must catch and the instruction counts cannot
// (docs/counters.md). Only tests and docs build it (-tags
// bindrace_release,bindrace_regress_syscall); no make target ships it.
//
//go:noinline
func regress(*binding.Request) {
	syscall.RawSyscall(syscall.SYS_GETPPID, 0, 0, 0)
}
