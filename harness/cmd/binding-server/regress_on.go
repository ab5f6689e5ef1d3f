//go:build bindrace_regress && !bindrace_regress_syscall

package main

import (
	"strconv"

	"github.com/bindrace/bindrace/binding"
)

// regressRounds is how many times every ping hashes its path: 4 (about 6% of binding's
// instructions per response) unless a test builds it with -ldflags "-X main.regressRounds=N",
// so the gate's tests get candidates a known amount slower.
var regressRounds = "4"

// regressSink keeps the work below from being optimised away.
var regressSink uint32

var rounds = func() int {
	n, err := strconv.Atoi(regressRounds)
	if err != nil || n < 0 {
		panic("binding-server: -X main.regressRounds=" + regressRounds + " is not a round count")
	}
	return n
}()

// regress makes every ping do real extra work: the candidate the gates must catch. Only the
// harness's tests build it (-tags bindrace_release,bindrace_regress); no make target ships it.
// It stays out of line so that per-function counts name it as a function of its own.
//
//go:noinline
func regress(r *binding.Request) {
	h := regressSink | 1
	for round := 0; round < rounds; round++ {
		for _, c := range r.Path() {
			h = h*16777619 ^ uint32(c)
		}
	}
	regressSink = h
}
