package netnstest

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
)

// Shared is the one lab of a test binary: its first test to ask starts it, a test skips where
// namespaces cannot be made, and TestMain runs the tests through Run, which removes it after
// them (a lab takes seconds to build, too long to build per test). The zero value is ready to
// use.
type Shared struct {
	once sync.Once
	mu   sync.Mutex // Close may run from a signal handler while a test starts the lab
	lab  *Lab
	err  error
}

// Get returns the lab, started on first use with Options{}: it skips t without the capability
// and fails it when the lab could not be built.
func (s *Shared) Get(t testing.TB) *Lab {
	t.Helper()
	s.once.Do(func() {
		l, err := Start(Options{})
		s.mu.Lock()
		s.lab, s.err = l, err
		s.mu.Unlock()
	})
	if errors.Is(s.err, ErrNoCapability) {
		t.Skip("needs real hosts in network namespaces: " + s.err.Error())
	}
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s.lab
}

// Run is TestMain's m.Run followed by Close: a lab that could not be removed fails the run.
func (s *Shared) Run(m *testing.M) int {
	code := m.Run()
	if err := s.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "netnstest:", err)
		code = 1
	}
	return code
}

// Close removes the lab if a test started it.
func (s *Shared) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lab == nil {
		return nil
	}
	return s.lab.Close()
}
