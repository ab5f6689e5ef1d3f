package remote

import (
	"errors"
	"strconv"
	"strings"

	"github.com/bindrace/bindrace/harness/internal/procfs"
)

// UsageOf is Usage for pid, a descendant of the process (a server that `bindrace serve`
// spawned): it carries the process's tag in its environment, so a reused pid is never read.
func (p *Process) UsageOf(pid int) (procfs.Usage, error) {
	ctx, cancel := p.s.r.commandContext()
	defer cancel()
	script := fill(`grep -qsaz -e @TAG@ /proc/@PID@/environ || exit 3; cat /proc/@PID@/stat; echo @@; cat /proc/@PID@/status`,
		"TAG", Quote(tagPattern(p.tag)), "PID", strconv.Itoa(pid))
	op := p.op("usage of")
	if pid != p.Pid {
		op = p.op("usage of pid " + strconv.Itoa(pid) + " of")
	}
	out, err := p.s.run(ctx, p.Host, op, script, nil)
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.Kind == ErrCommand && e.ExitCode == 3 {
			e.Detail = "the process has exited"
		}
		return procfs.Usage{}, err
	}
	stat, status, ok := strings.Cut(string(out), "\n@@\n")
	if !ok {
		return procfs.Usage{}, &Error{Host: p.Host, Op: op, Kind: ErrCommand, ExitCode: -1, Detail: "unexpected output"}
	}
	u, err := procfs.ParseUsage([]byte(stat), []byte(status))
	if err != nil {
		return u, &Error{Host: p.Host, Op: op, Kind: ErrCommand, ExitCode: -1, Detail: err.Error()}
	}
	return u, nil
}
