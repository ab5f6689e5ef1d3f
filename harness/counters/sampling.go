package counters

// Sampling is an optional Sampler around a server's measurement windows whose failures never
// fail the measurement: the first one is kept as the reason there is no sample table.
type Sampling struct {
	s   *Sampler
	err string
}

// StartSampling attaches a sampler to pid when o is set.
func StartSampling(pid int, o *SamplerOptions) *Sampling {
	sm := &Sampling{}
	if o == nil {
		return sm
	}
	s, err := StartSampler(pid, *o)
	if err != nil {
		sm.err = err.Error()
		return sm
	}
	sm.s = s
	return sm
}

// Enable turns the samples on as a window opens.
func (sm *Sampling) Enable() {
	if sm.s != nil {
		sm.fail(sm.s.Enable())
	}
}

// Disable turns them off as it closes.
func (sm *Sampling) Disable() {
	if sm.s != nil {
		sm.fail(sm.s.Disable())
	}
}

// fail keeps the first error and gives up the sampler.
func (sm *Sampling) fail(err error) {
	if err != nil && sm.s != nil {
		sm.err = err.Error()
		sm.s.Close()
		sm.s = nil
	}
}

// Finish reads the samples of every window as a table per response (responses: those the
// windows served), or says why there is none ("" and nil when no sampling was asked for).
func (sm *Sampling) Finish(responses int64) (*SampleTable, string) {
	if sm.s == nil {
		return nil, sm.err
	}
	p, err := sm.s.Finish()
	sm.s = nil
	if err != nil {
		return nil, err.Error()
	}
	return p.Table(responses), ""
}

// Close stops a sampler a failed measurement left running.
func (sm *Sampling) Close() {
	if sm.s != nil {
		sm.s.Close()
		sm.s = nil
	}
}
