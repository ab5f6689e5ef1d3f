//go:build bindrace_regress && !bindrace_regress_syscall

package main

import "github.com/bindrace/bindrace/binding"

// regressSink keeps the work below from being optimised away.
var regressSink uint32

// regress makes every ping do real extra work, about 6% of binding's instructions per response
// (a hash of the path, 4 rounds): the candidate the baseline gate must catch. Only the
// harness's tests build it (-tags bindrace_release,bindrace_regress); no make target ships it.
func regress(r *binding.Request) {
	h := regressSink | 1
	for round := 0; round < 4; round++ {
		for _, c := range r.Path() {
			h = h*16777619 ^ uint32(c)
		}
	}
	regressSink = h
}
