// Package stats turns measured runs into the figures a race or matrix is judged by: descriptive
// statistics, per-pair deltas, a distribution-free interval of the median delta (binomial order
// statistics, at a recorded confidence level: docs/statistics.md), the order effect, and the slot
// correlation that exposes position bias in a matrix.
//
// Descriptive helpers return NaN for input too small to define them (an empty slice has no
// median), because a made-up zero would read as a measurement. The functions that fill the
// on-disk session types replace NaN with 0 instead, since encoding/json cannot write NaN; they
// say so in the session's warnings where it matters.
package stats
