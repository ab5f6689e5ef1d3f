package counters

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// SampleProfile is a sampler's samples folded: CPU time by function (where the sample's stack
// ended: self time), by system call, and by activity, with the user and kernel split.
type SampleProfile struct {
	Samples    int64
	Threads    int                         // distinct threads sampled
	CPUNs      float64                     // samples × their period: the CPU time sampled
	UserNs     float64                     // of which the stack ended in user space
	KernelNs   float64                     // … in the kernel
	Functions  map[string]*SampledFunction // by the stack's last frame
	Syscalls   map[string]float64          // ns inside each system call (kernel stacks under one)
	Activities map[string]float64          // ns by activity (activities.go)
	Window     time.Duration               // how long sampling was on
	Period     time.Duration               // the cpu-clock period
}

// SampledFunction is one function's self time.
type SampledFunction struct {
	Kernel bool
	Ns     float64
}

// Kernel rows that are not one system call, and the row of samples perf took no call chain of
// (counted in user space: where they were is not known).
const (
	NoCallChain   = "[no call chain]"
	SyscallPath   = "(system call entry and exit)"
	KernelOutside = "(kernel, outside system calls: interrupts, softirqs, faults)"
)

// A kernel frame that names the system call it serves: __x64_sys_recvfrom, __sys_sendmsg,
// ksys_read, __do_sys_… (the outermost such frame, nearest the entry, wins).
var syscallFrame = regexp.MustCompile(`^(?:__x64_sys_|__ia32_sys_|__do_sys_|__se_sys_|ksys_|_{2,4}sys_)([a-z0-9_]+)$`)

// FoldScript reads `perf script -F tid,period,ip,sym,dso` of call-graph samples (a header line
// "tid period", then one tab-indented frame per line, leaf first, a blank line between samples) and folds
// them. A user frame without a symbol is named noSymbolName (JITCode for node). A sample
// without a period is an error (a truncated or foreign script), and so are samples none of which
// has a call chain.
func FoldScript(r io.Reader, noSymbolName string) (*SampleProfile, error) {
	p := &SampleProfile{Functions: map[string]*SampledFunction{}, Syscalls: map[string]float64{}, Activities: map[string]float64{}}
	threads := map[string]bool{}
	var period float64
	var frames []frame
	inSample := false
	frameless := int64(0)
	flush := func() error {
		if !inSample {
			return nil
		}
		inSample = false
		if len(frames) == 0 {
			// perf could not take this sample's call chain; it stays a sample
			frames = append(frames, frame{sym: NoCallChain})
			frameless++
		}
		p.add(frames, period, noSymbolName)
		frames = frames[:0]
		return nil
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		switch {
		case strings.TrimSpace(text) == "":
			if err := flush(); err != nil {
				return nil, err
			}
		case text[0] == '\t': // a frame; a header may start with spaces (perf right-aligns the tid)
			if !inSample {
				return nil, fmt.Errorf("line %d: a frame before any sample header", line)
			}
			frames = append(frames, parseFrame(strings.TrimSpace(text)))
		default:
			if err := flush(); err != nil {
				return nil, err
			}
			f := strings.Fields(text)
			v, err := strconv.ParseFloat(f[len(f)-1], 64)
			if len(f) < 2 || err != nil || v <= 0 {
				return nil, fmt.Errorf("line %d: sample header %q is not \"tid period\"", line, text)
			}
			threads[f[0]] = true
			period, inSample = v, true
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if p.Samples > 0 && frameless == p.Samples {
		return nil, fmt.Errorf("no sample has a call chain (not recorded with -g?)")
	}
	p.Threads = len(threads)
	return p, nil
}

// frame is one line of a sample's stack.
type frame struct {
	sym    string
	kernel bool
}

// parseFrame reads "ip symbol (dso)"; the symbol may hold spaces (C++), the dso is the last
// parenthesised part.
func parseFrame(s string) frame {
	ip, rest, _ := strings.Cut(s, " ")
	sym, dso := rest, ""
	if i := strings.LastIndex(rest, " ("); i >= 0 && strings.HasSuffix(rest, ")") {
		sym, dso = rest[:i], rest[i+2:len(rest)-1]
	}
	addr, _ := strconv.ParseUint(ip, 16, 64)
	kernel := strings.HasPrefix(dso, "[kernel") || addr >= 0xffff800000000000
	if i := strings.LastIndex(sym, "+0x"); i > 0 { // perf script -F sym with offsets
		sym = sym[:i]
	}
	return frame{sym: strings.TrimSpace(sym), kernel: kernel}
}

// add folds one sample of period ns.
func (p *SampleProfile) add(frames []frame, period float64, noSymbolName string) {
	p.Samples++
	p.CPUNs += period
	leaf := frames[0]
	name := leaf.sym
	if name == "" || name == "[unknown]" {
		name = noSymbolName
		if leaf.kernel {
			name = "[kernel: no symbol]"
		}
	}
	fn := p.Functions[name]
	if fn == nil {
		fn = &SampledFunction{Kernel: leaf.kernel}
		p.Functions[name] = fn
	}
	fn.Ns += period
	names := make([]string, len(frames))
	for i, f := range frames {
		names[i] = f.sym
	}
	p.Activities[activityOf(names)] += period
	if !leaf.kernel {
		p.UserNs += period
		return
	}
	p.KernelNs += period
	p.Syscalls[syscallOf(frames)] += period
}

// syscallOf names the system call a kernel stack serves: the outermost frame that names one;
// SyscallPath when the stack is in the system-call entry or exit path; KernelOutside else.
func syscallOf(frames []frame) string {
	inSyscall := false
	for i := len(frames) - 1; i >= 0; i-- {
		f := frames[i]
		if !f.kernel {
			continue
		}
		if m := syscallFrame.FindStringSubmatch(f.sym); m != nil {
			return m[1]
		}
		if strings.HasPrefix(f.sym, "entry_SYSCALL") || f.sym == "do_syscall_64" {
			inSyscall = true
		}
	}
	if inSyscall {
		return SyscallPath
	}
	return KernelOutside
}
