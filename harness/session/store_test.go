package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWriteLoad(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	if err := CreateDir(dir, false); err != nil {
		t.Fatal(err)
	}
	s := Summary{Raced: Raced{SchemaVersion: SchemaVersion, Kind: "race", A: "binding", B: "uws"}, Figures: Figures{CILevel: 0.95, Pairs: []Pair{{Order: "AB", DeltaPct: 3}}}, Decision: Decision{Verdict: Pass}}
	if err := WriteJSON(filepath.Join(dir, SummaryFile), s); err != nil {
		t.Fatal(err)
	}
	got, err := LoadSummary(dir)
	if err != nil || got.A != "binding" || len(got.Pairs) != 1 {
		t.Fatalf("%+v %v", got, err)
	}
	if k, err := Kind(dir); k != "race" || err != nil {
		t.Errorf("kind %q %v", k, err)
	}
	if _, err := LoadSummary(filepath.Join(dir, SummaryFile)); err != nil {
		t.Errorf("by file: %v", err)
	}
	// No temporary files are left behind.
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left over: %s", e.Name())
		}
	}
	// A session directory is never reused.
	if err := CreateDir(dir, false); err == nil {
		t.Errorf("CreateDir reused a session directory")
	}
	if _, err := Kind(t.TempDir()); err == nil {
		t.Errorf("Kind of an empty directory")
	}
}

func TestName(t *testing.T) {
	n := Name(time.Date(2026, 11, 29, 21, 56, 0, 0, time.UTC), "binding", "cmd:./srv --port {port}")
	if n != "20261129-215600-binding-vs-cmd_._srv_--port_port" {
		t.Errorf("Name: %s", n)
	}
}
