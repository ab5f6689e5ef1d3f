//go:build !bindrace_regress && !bindrace_regress_syscall && !bindrace_regress_leak

package main

import "github.com/bindrace/bindrace/binding"

// regress is the ping handler's hook for the regression tests (regress_on.go: more
// instructions; regress_syscall.go: one more system call; regress_leak.go: memory kept); in
// every shipped build it does nothing and is inlined away.
func regress(*binding.Request) {}
