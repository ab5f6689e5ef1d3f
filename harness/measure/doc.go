// Package measure is the harness's measurement core: it measures runs of fresh server processes
// under a load driver and returns typed results. One Rig serves one session; the session kinds
// (harness/kinds) arrange its runs into races, matrices, scales, sweeps and noise studies.
//
// A run is one server process: start it (here, or on a fleet's server host), verify it serves
// its scenario, warm it up, settle, measure it in one or more windows, read what it says of
// itself afterwards, stop it. What is read around each window comes from Probes plugged into the
// rig (the server's CPU and RSS, its own counts, perf_event counters, PostgreSQL and the load
// generator during a database scenario, the machine's stolen time): each opens as the window
// opens and writes its typed part into the Window as it closes. The run's record for the session
// files (session.Run) is made from the kept windows by the probes, and whether the client bound
// the run is decided by one function over those results (ClientBound).
//
// The method, as Plan says it:
//   - one window (Plan.Windows <= 1): each run is its own fresh process: start, verify, warm
//     up, settle, measure, stop, cool down; a pair is two such runs back to back (Rig.Run,
//     Rig.Pair);
//   - several windows: a pair starts both servers, warms both, then measures them in
//     alternating windows (A B B A A B …), each window on fresh connections, and each side's
//     run is the sum of its windows (Rig.Pair). The closed loop falls into a batching regime per
//     set of connections, which makes one window vary by several percent (docs/noise.md); the
//     windows average regimes out, and alternating them cancels the machine's drift within the
//     pair. A hook after each round of partner windows may set the round aside and have it
//     measured again (PairOptions); set-aside windows stay in the results, marked.
//
// Nothing here prints: progress goes to the Events callback as typed events, which the CLI
// renders.
package measure
