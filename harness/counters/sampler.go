package counters

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// DefaultSamplePeriod is the sampler's cpu-clock period: one sample per millisecond of a
// thread's CPU time, about 4,000 samples in a 5 s window of one busy server CPU. Sampling costs
// the server: measured on binding, ping at pipelining 1, +9% CPU per response at 1 ms and +14 to
// +22% at 250 µs (docs/counters.md).
const DefaultSamplePeriod = time.Millisecond

// SamplerOptions shape the wall-clock sampler. Zero values take the defaults.
type SamplerOptions struct {
	Perf    string        // perf executable, default "perf" from PATH
	Period  time.Duration // cpu-clock period, default DefaultSamplePeriod
	CPUs    string        // where perf itself runs (the client's CPUs, not the server's); "" = not pinned
	Dir     string        // where perf.data goes; "" = a temporary directory Finish removes
	Timeout time.Duration // for each answer of perf's control channel, default 20 s
}

// Sampler is `perf record -e cpu-clock -g` attached to every thread of a server, its events off
// until Enable and off again at Disable: a probe a measurement starts before its window, turns
// on and off at the window's edges, and reads with Finish. cpu-clock is a software event (no
// PMU); samples carry the kernel's stack and the user stack (frame pointers), so the time the
// server spends in its system calls is where it belongs.
type Sampler struct {
	o        SamplerOptions
	perf     string
	pid      int
	exe      string
	file     string
	tmpDir   string
	cmd      *exec.Cmd
	stderr   bytes.Buffer
	ctl, ack *os.File
	exited   chan struct{}
	on       time.Time
	window   time.Duration
}

// StartSampler attaches perf to pid's threads with its events disabled and waits until it
// answers on its control channel. Where perf is missing, not permitted (perf_event_paranoid)
// or cannot attach, the error says why.
func StartSampler(pid int, o SamplerOptions) (*Sampler, error) {
	if o.Perf == "" {
		o.Perf = "perf"
	}
	if o.Period <= 0 {
		o.Period = DefaultSamplePeriod
	}
	if o.Timeout <= 0 {
		o.Timeout = 20 * time.Second
	}
	perf, err := exec.LookPath(o.Perf)
	if err != nil {
		return nil, fmt.Errorf("sampler: %s not found (%v): install perf (Debian: apt-get install linux-perf)", o.Perf, err)
	}
	s := &Sampler{o: o, perf: perf, pid: pid, exited: make(chan struct{})}
	s.exe, _ = os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	dir := o.Dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "bindrace-sample-"); err != nil {
			return nil, err
		}
		s.tmpDir = dir
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	s.file = filepath.Join(dir, fmt.Sprintf("sample-%d.perf.data", pid))
	if err := s.openControl(dir); err != nil {
		s.cleanup()
		return nil, err
	}
	if err := s.start(); err != nil {
		s.cleanup()
		return nil, err
	}
	if err := s.command("ping"); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// openControl makes the two fifos of perf's --control and opens this side of them (read-write,
// so that opening never blocks on perf).
func (s *Sampler) openControl(dir string) error {
	for _, name := range []string{"ctl", "ack"} {
		p := filepath.Join(dir, fmt.Sprintf("sample-%d.%s", s.pid, name))
		os.Remove(p)
		if err := unix.Mkfifo(p, 0o600); err != nil {
			return fmt.Errorf("sampler: mkfifo %s: %w", p, err)
		}
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			return fmt.Errorf("sampler: %w", err)
		}
		if name == "ctl" {
			s.ctl = f
		} else {
			s.ack = f
		}
	}
	return nil
}

// start runs perf record on the client's CPUs.
func (s *Sampler) start() error {
	args := []string{s.perf, "record", "-q", "-e", "cpu-clock", "-c", strconv.FormatInt(s.o.Period.Nanoseconds(), 10), "-g",
		"-D", "-1", "--control", "fifo:" + s.ctl.Name() + "," + s.ack.Name(), "-p", strconv.Itoa(s.pid), "-o", s.file}
	if s.o.CPUs != "" {
		taskset, err := exec.LookPath("taskset")
		if err != nil {
			return fmt.Errorf("sampler: taskset not found (%v): install util-linux", err)
		}
		args = append([]string{taskset, "-c", s.o.CPUs}, args...)
	}
	s.cmd = exec.Command(args[0], args[1:]...)
	s.cmd.Stderr = &s.stderr
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("sampler: start perf: %w", err)
	}
	go func() {
		s.cmd.Wait()
		close(s.exited)
	}()
	return nil
}

// command sends one control command and waits for perf's ack, or for perf to exit (then its
// own message says why), or for the timeout.
func (s *Sampler) command(c string) error {
	if _, err := io.WriteString(s.ctl, c+"\n"); err != nil {
		return fmt.Errorf("sampler: %s: %w", c, err)
	}
	deadline := time.Now().Add(s.o.Timeout)
	var got []byte
	buf := make([]byte, 64)
	for {
		// Short reads, so that perf's exit is seen: this side holds the fifo open too, so a
		// read never ends in EOF.
		s.ack.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		n, err := s.ack.Read(buf)
		got = append(got, buf[:n]...)
		if line, _, ok := bytes.Cut(got, []byte("\n")); ok {
			if string(line) != "ack" {
				return fmt.Errorf("sampler: %s: perf answered %q", c, line)
			}
			return nil
		}
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("sampler: %s: %w", c, err)
		}
		select {
		case <-s.exited:
			return fmt.Errorf("sampler: perf record exited: %s", s.perfSays())
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sampler: perf did not answer %q within %s", c, s.o.Timeout)
		}
	}
}

// perfSays is perf's own last words, with what to do when they are about permission.
func (s *Sampler) perfSays() string {
	msg := strings.TrimSpace(s.stderr.String())
	if msg == "" {
		msg = "no message"
	}
	if strings.Contains(msg, "perf_event_paranoid") || strings.Contains(msg, "ermission") {
		msg += "; " + paranoidAdvice()
	}
	return msg
}

// Enable turns the sampling on: the window opens.
func (s *Sampler) Enable() error {
	if err := s.command("enable"); err != nil {
		return err
	}
	s.on = time.Now()
	return nil
}

// Disable turns the sampling off: the window closes.
func (s *Sampler) Disable() error {
	if s.on.IsZero() {
		return errors.New("sampler: disabled before it was enabled")
	}
	s.window += time.Since(s.on)
	s.on = time.Time{}
	return s.command("disable")
}

// Finish stops perf, folds its samples and removes what it made (unless Dir was given).
func (s *Sampler) Finish() (*SampleProfile, error) {
	defer s.cleanup()
	if err := s.stop(); err != nil {
		return nil, err
	}
	p, err := FoldPerfData(s.perf, s.file, unknownLabel(s.exe))
	if err != nil {
		return nil, fmt.Errorf("sampler: %w", err)
	}
	p.Window = s.window
	p.Period = s.o.Period
	return p, nil
}

// FoldPerfData folds a perf.data of call-graph samples (perf record -g) with perf script; a
// user frame without a symbol is named noSymbolName.
func FoldPerfData(perf, file, noSymbolName string) (*SampleProfile, error) {
	script := exec.Command(perf, "script", "-i", file, "-F", "tid,period,ip,sym,dso")
	var errb bytes.Buffer
	script.Stderr = &errb
	out, err := script.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := script.Start(); err != nil {
		return nil, fmt.Errorf("perf script: %w", err)
	}
	p, foldErr := FoldScript(out, noSymbolName)
	io.Copy(io.Discard, out) // let perf finish writing if the fold stopped early
	if err := script.Wait(); err != nil {
		return nil, fmt.Errorf("perf script -i %s: %v: %s", file, err, strings.TrimSpace(errb.String()))
	}
	if foldErr != nil {
		return nil, fmt.Errorf("%s: %w", file, foldErr)
	}
	return p, nil
}

// stop ends perf record (it writes its file's header at exit).
func (s *Sampler) stop() error {
	select {
	case <-s.exited:
		return fmt.Errorf("sampler: perf record exited early: %s", s.perfSays())
	default:
	}
	s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-s.exited:
		return nil
	case <-time.After(s.o.Timeout):
		s.cmd.Process.Kill()
		<-s.exited
		return fmt.Errorf("sampler: perf record did not stop within %s of SIGINT", s.o.Timeout)
	}
}

// Close stops perf without reading its samples (a measurement that failed).
func (s *Sampler) Close() {
	if s.cmd != nil && s.cmd.Process != nil {
		select {
		case <-s.exited:
		default:
			s.cmd.Process.Kill()
			<-s.exited
		}
	}
	s.cleanup()
}

// cleanup closes and removes the fifos, and the temporary directory; it may run twice.
func (s *Sampler) cleanup() {
	for _, f := range []**os.File{&s.ctl, &s.ack} {
		if *f != nil {
			(*f).Close()
			os.Remove((*f).Name())
			*f = nil
		}
	}
	if s.tmpDir != "" {
		os.RemoveAll(s.tmpDir)
		s.tmpDir = ""
	}
}
