//go:build bindrace_regress_syscall && !bindrace_regress && amd64

package main

import "github.com/bindrace/bindrace/binding"

// regress makes every ping one system call more, and almost nothing else: getppid, the
// cheapest there is, in a function of its own that is only the system call
// (regress_syscall_amd64.s), so that its user-space instructions are a handful while the
// kernel's entry and exit run once more per response. The candidate the system-call counts must
// catch and the instruction counts cannot (docs/counters.md); Go's syscall.RawSyscall would add
// about 40 instructions of wrappers. Only tests and docs build it (-tags
// bindrace_release,bindrace_regress_syscall); no make target ships it.
func regress(*binding.Request) { getppid() }

// getppid enters the kernel for getppid(2) and returns; its result is not needed.
func getppid()
