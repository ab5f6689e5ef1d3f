package main

import (
	"errors"
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
	// A new file only: a profile carries no mark of what wrote it, so a file already there may
	// be anyone's (the training script empties its folder first).
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("--cpuprofile %s: the file exists, and the server writes only a new one: remove it or name another", path)
	}
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
