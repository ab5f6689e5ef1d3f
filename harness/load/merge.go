package load

// Merge adds up loads that ran at the same time over one common window, one per generator
// (host): responses, errors and bytes add up, throughput is the sum of each one's, the
// histograms merge and the percentiles are read from the merged one. Open loops add their
// asked and sent rates; their send lag comes from the merged lag histograms, the generator CPU
// is the busiest generator's, and the whole is generator-bound when any generator was (its
// share of the schedule slipped). nil without results.
func Merge(parts []*Result) *Result {
	if len(parts) == 0 {
		return nil
	}
	m := &Result{Errors: map[string]int64{}, Hist: NewHistogram(), Unit: parts[0].Unit}
	var client *ClientStats
	for _, r := range parts {
		m.Responses += r.Responses
		m.RPS += r.RPS
		m.Elapsed = max(m.Elapsed, r.Elapsed)
		m.BytesRead += r.BytesRead
		m.Reconnects += r.Reconnects
		for k, v := range r.Errors {
			m.Errors[k] += v
		}
		if r.Hist != nil {
			m.Hist.Merge(r.Hist)
		}
		client = addClient(client, r.Client)
		m.Open = addOpen(m.Open, r.Open)
	}
	m.Latency = Summarize(m.Hist)
	if client != nil && client.Reads > 0 && client.Wakeups > 0 {
		client.ResponsesPerRead = float64(m.Responses) / float64(client.Reads)
		client.BatchesInFlight /= float64(client.Wakeups)
		m.Client = client
	}
	if o := m.Open; o != nil {
		o.Lag = Summarize(o.LagHist)
		if m.Elapsed > 0 {
			o.SentRate = float64(o.Sent) / m.Elapsed.Seconds()
		}
	}
	return m
}

// addClient adds c's reads and wake-ups to sum; sum's BatchesInFlight holds the batches in
// flight summed over the wake-ups until Merge divides it.
func addClient(sum, c *ClientStats) *ClientStats {
	if c == nil {
		return sum
	}
	if sum == nil {
		sum = &ClientStats{}
	}
	sum.Reads += c.Reads
	sum.Wakeups += c.Wakeups
	sum.BatchesInFlight += c.BatchesInFlight * float64(c.Wakeups)
	return sum
}

// addOpen adds one generator's open loop to sum (nil: none yet).
func addOpen(sum, o *OpenLoop) *OpenLoop {
	if o == nil {
		return sum
	}
	if sum == nil {
		sum = &OpenLoop{Arrival: o.Arrival, LagTolerance: o.LagTolerance, LagHist: NewHistogram()}
	}
	sum.Rate += o.Rate
	sum.Sent += o.Sent
	sum.CPUPct = max(sum.CPUPct, o.CPUPct)
	sum.GeneratorBound = sum.GeneratorBound || o.GeneratorBound
	if o.LagHist != nil {
		sum.LagHist.Merge(o.LagHist)
	}
	return sum
}
