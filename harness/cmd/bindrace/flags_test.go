package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/session"
)

// A domain package's setting error reaches the user worded as the flag that sets it.
func TestSettingErrorsNameFlags(t *testing.T) {
	// A folder holding a file bindrace did not write: session.CheckDir names {out} and
	// {force}. It fails before any race (a target that does not exist, should that change).
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, session.SummaryFile), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := calibrateCommand([]string{"--out", dir, "--target", "no-such-target"}, &stdout, &stderr)
	if want := "holds files bindrace did not write (summary.json has kind \"\"); choose another --out, or give --force to write into it\n"; code != 2 || !strings.HasSuffix(stderr.String(), want) {
		t.Errorf("calibrate into a used directory: exit %d, stderr %q, want it to end in %q", code, stderr.String(), want)
	}

	// A bad host spec: fleet.Open names {server_host} or {client_hosts}.
	for _, c := range []struct {
		h    hostFlags
		want string
	}{
		{hostFlags{server: "a b"}, `--server-host: host "a b"`},
		{hostFlags{server: "h", clients: "c,d e"}, `--client-hosts: host "d e"`},
	} {
		if _, err := c.h.open(io.Discard); err == nil || !strings.HasPrefix(flagWords(err), c.want) {
			t.Errorf("%+v: %v, want %q", c.h, err, c.want)
		}
	}
	code, _, errOut := runCLI("http://127.0.0.1:1/", "--client-hosts", "c,d e")
	if want := `bindrace load: --client-hosts: host "d e"`; code != 2 || !strings.HasPrefix(errOut, want) {
		t.Errorf("load on a bad client host: exit %d, stderr %q, want %q", code, errOut, want)
	}
}
