// Package kinds holds the session kinds: race, matrix, scale, sweep, noise and calibrate. Each
// is a thin layer over harness/measure that arranges its runs (balanced pairs, shuffled rounds,
// thread counts, rates, nested windows, races against a known slowdown), summarises them with
// harness/stats and harness/gate, writes the session's JSON files through harness/session and
// returns a typed result. They share one set-up (setup.go: the rig, the manifest, the load
// generator pinned, the database, the preflight), so they are one package, a file or two each.
//
// Nothing here prints, renders a report or knows a flag: progress and "files written" go to the
// Events callback as measure's typed events, bad input is a setting.Error naming the setting,
// and the CLI (harness/cmd/bindrace) words, prints, renders and maps verdicts to exit codes.
package kinds
