package remote

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// StartPlan is one start instant for commands on several hosts (the load generators of one
// run), so that they begin together although ssh starts them one after another. Each host gets
// the instant in its own clock: the plan measures how far each host's clock is from this one.
type StartPlan struct {
	At       time.Time                // the instant, in this machine's clock
	Offsets  map[string]time.Duration // by Host.String(): how far the host's clock is ahead of ours
	Accuracy time.Duration            // half the longest round trip of the measurements
}

// PlanStart measures the clock offset of every host (in parallel) and picks an instant lead
// from now (0 means 2 s). lead must cover starting every command: a command that begins after
// the instant has passed finds SleepUntil failing.
func (r *Runner) PlanStart(ctx context.Context, hosts []Host, lead time.Duration) (*StartPlan, error) {
	if lead <= 0 {
		lead = 2 * time.Second
	}
	p := &StartPlan{Offsets: map[string]time.Duration{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make([]error, len(hosts))
	for i, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			off, rtt, err := r.ClockOffset(ctx, h)
			mu.Lock()
			defer mu.Unlock()
			errs[i] = err
			p.Offsets[h.String()] = off
			p.Accuracy = max(p.Accuracy, rtt/2)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	p.At = time.Now().Add(lead)
	return p, nil
}

// On is the plan's instant in h's clock.
func (p *StartPlan) On(h Host) time.Time { return p.At.Add(p.Offsets[h.String()]) }

// Arg is the instant in h's clock formatted for a command line (FormatStartAt).
func (p *StartPlan) Arg(h Host) string { return FormatStartAt(p.On(h)) }

// FormatStartAt formats a start instant as UTC RFC 3339 with nanoseconds.
func FormatStartAt(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// ParseStartAt reads an instant written by FormatStartAt.
func ParseStartAt(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("start instant %q: want RFC 3339 such as 2026-11-30T12:00:00.5Z", s)
	}
	return t, nil
}

// SleepUntil waits until t, for the command that was handed a start instant. It fails at once
// when t has passed (the plan's lead was too short for starting every command), so the
// commands never start apart unknowingly.
func SleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d < 0 {
		return fmt.Errorf("start instant %s passed %s ago: the start plan's lead was too short", FormatStartAt(t), -d)
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ClockOffset measures how far h's clock is ahead of this machine's, over one connection:
// the host prints the time when asked, a few times, and the exchange with the shortest round
// trip counts, its midpoint taken as the instant the host read its clock.
func (r *Runner) ClockOffset(ctx context.Context, h Host) (offset, rtt time.Duration, err error) {
	const op, probes = "read clock", 5
	script := `echo ready; while read -r x; do date +%s%N; done`
	cmd := exec.CommandContext(ctx, r.o.SSH, append(r.sshArgs(h), r.remoteCommand(script))...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 2 * time.Second
	stderr := &tailBuffer{max: 4 << 10}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 0, 0, &Error{Host: h, Op: op, Kind: ErrSSH, ExitCode: -1, Detail: err.Error()}
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, &Error{Host: h, Op: op, Kind: ErrSSH, ExitCode: -1, Detail: err.Error()}
	}
	if err := cmd.Start(); err != nil {
		return 0, 0, &Error{Host: h, Op: op, Kind: ErrSSH, ExitCode: -1, Detail: err.Error()}
	}
	in := bufio.NewReader(stdout)
	fail := func(detail string) (time.Duration, time.Duration, error) {
		stdin.Close()
		werr := cmd.Wait()
		if ctx.Err() != nil {
			return 0, 0, &Error{Host: h, Op: op, Kind: ctx.Err(), ExitCode: -1}
		}
		var ee *exec.ExitError
		if errors.As(werr, &ee) {
			return 0, 0, newError(h, op, ee.ExitCode(), stderr.String())
		}
		return 0, 0, &Error{Host: h, Op: op, Kind: ErrCommand, ExitCode: -1, Detail: detail}
	}
	if line, err := in.ReadString('\n'); err != nil || strings.TrimSpace(line) != "ready" {
		return fail(fmt.Sprintf("unexpected greeting %q", line))
	}
	rtt = -1
	for range probes {
		t0 := time.Now()
		if _, err := stdin.Write([]byte("t\n")); err != nil {
			return fail(err.Error())
		}
		line, err := in.ReadString('\n')
		t1 := time.Now()
		if err != nil {
			return fail(err.Error())
		}
		ns, err := strconv.ParseInt(strings.TrimSpace(line), 10, 64)
		if err != nil {
			return fail(fmt.Sprintf("unexpected time %q", line))
		}
		if d := t1.Sub(t0); rtt < 0 || d < rtt {
			rtt = d
			offset = time.Unix(0, ns).Sub(t0.Add(d / 2))
		}
	}
	stdin.Close()
	if werr := cmd.Wait(); werr != nil {
		var ee *exec.ExitError
		if errors.As(werr, &ee) {
			return 0, 0, newError(h, op, ee.ExitCode(), stderr.String())
		}
		return 0, 0, &Error{Host: h, Op: op, Kind: ErrSSH, ExitCode: -1, Detail: werr.Error()}
	}
	return offset, rtt, nil
}
