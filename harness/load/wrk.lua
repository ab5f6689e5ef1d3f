-- bindrace's wrk script: args[1] is a file holding one raw request, args[2] how many copies go
-- out in one write (pipelining); done() writes the summary as JSON to $BINDRACE_WRK_OUT.
local batch, pipelined

init = function(args)
  local f = assert(io.open(args[1], "rb"))
  local one = f:read("*a")
  f:close()
  batch = string.rep(one, tonumber(args[2]))
end

request = function()
  return batch
end

done = function(summary, latency, requests)
  local e = summary.errors
  -- wrk 4.1 records one latency per pipelined batch but ranks percentiles against the number of
  -- responses, so with pipelining its upper percentiles read 0. Mean and max are sound; the
  -- percentiles are left out (-1) unless every batch is one request.
  local p = function(q)
    if tonumber(os.getenv("BINDRACE_WRK_PIPELINING")) > 1 then return -1 end
    return latency:percentile(q)
  end
  local f = assert(io.open(os.getenv("BINDRACE_WRK_OUT"), "w"))
  f:write(string.format(
    '{"duration_us": %d, "requests": %d, "bytes": %d, ' ..
    '"errors": {"connect": %d, "read": %d, "write": %d, "status": %d, "timeout": %d}, ' ..
    '"latency_us": {"p50": %g, "p95": %g, "p99": %g, "p999": %g, "max": %g, "mean": %g}}',
    summary.duration, summary.requests, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    p(50), p(95), p(99), p(99.9), latency.max, latency.mean))
  f:close()
end
