package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startCPUProfile starts Go's CPU profiler writing to path (--cpuprofile: the Go PGO training
// run, scripts/go-pgo-train.sh) and returns what stops it and closes the file; "" profiles
// nothing. The profile covers the Go side only: the native core's time shows as cgo calls.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "binding-server: --cpuprofile:", err)
		}
	}, nil
}
