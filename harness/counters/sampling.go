package counters

// sampling is an optional Sampler around a measurement window whose failures never fail the
// measurement: the first one is kept as the reason there is no sample table.
type sampling struct {
	s   *Sampler
	err string
}

// startSampling attaches a sampler to pid when o is set.
func startSampling(pid int, o *SamplerOptions) *sampling {
	sm := &sampling{}
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

func (sm *sampling) enable() {
	if sm.s != nil {
		sm.fail(sm.s.Enable())
	}
}

func (sm *sampling) disable() {
	if sm.s != nil {
		sm.fail(sm.s.Disable())
	}
}

// fail keeps the first error and gives up the sampler.
func (sm *sampling) fail(err error) {
	if err != nil && sm.s != nil {
		sm.err = err.Error()
		sm.s.Close()
		sm.s = nil
	}
}

// finish reads the samples as a table per response, or says why there is none ("" and nil
// when no sampling was asked for).
func (sm *sampling) finish(responses int64) (*SampleTable, string) {
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

// close stops a sampler a failed measurement left running.
func (sm *sampling) close() {
	if sm.s != nil {
		sm.s.Close()
		sm.s = nil
	}
}
