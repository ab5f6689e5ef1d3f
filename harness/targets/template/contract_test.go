package template

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/db"
	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/targets"
)

// TestContractDoc keeps docs/scenario-contract.md honest where that is cheap: every scenario's
// name, request line, headers, body and expected answer, every background and database route,
// and the constants a target must know appear in it as the code has them. A change to
// harness/scenario or harness/db that the page does not follow fails here, naming what is
// missing.
func TestContractDoc(t *testing.T) {
	root, err := machine.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "docs", "scenario-contract.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	want := func(what, text string) {
		t.Helper()
		if !strings.Contains(doc, text) {
			t.Errorf("docs/scenario-contract.md does not say %s: %q", what, text)
		}
	}
	for _, sc := range append(scenario.All(), scenario.DB()...) {
		if !strings.Contains(doc, "# "+sc.Name) && !strings.Contains(doc, "`"+sc.Name+"`") {
			t.Errorf("docs/scenario-contract.md names scenario %s neither in a heading nor in code", sc.Name)
		}
		wantScenario(sc, want)
	}

	for _, r := range scenario.BackgroundRoutes {
		want("a background route", "`"+r.Method+" "+r.Path+"`")
	}
	for _, r := range db.Routes {
		want("a database route", "`"+r.Method+" "+r.Path+"`")
	}
	for _, st := range db.Statements {
		want("a statement's name", "`"+st.Name+"`")
	}
	for what, text := range map[string]string{
		"the info path":                 "`GET " + scenario.InfoPath + "`",
		"the params header":             "`" + scenario.BenchHeader + ": 1`",
		"the WebSocket path":            "`GET " + scenario.WSPath + "`",
		"the largest WebSocket message": strconv.Itoa(scenario.WSMaxMessage),
		"the listen address variable":   "`" + targets.ListenEnv + "`",
		"the database URL variable":     "`" + db.EnvURL + "`",
		"the pool size variable":        "`" + db.EnvPool + "`",
		"the default pool size":         "means " + strconv.Itoa(db.DefaultPoolSize),
		"the error body prefix":         "`" + db.ErrorPrefix + "`",
		"the id placeholder":            "`" + scenario.IDPlaceholder + "`",
		"the query timeout":             "(" + strconv.Itoa(int(db.QueryTimeout.Seconds())) + " s)",
	} {
		want(what, text)
	}
}

// wantScenario asks the page for sc's request (line, headers, body) and expected answer
// (status, content type, headers, body or its length and hash).
func wantScenario(sc scenario.Scenario, want func(what, text string)) {
	want(sc.Name+"'s request line", sc.Method+" "+sc.WithID(42).Path+" HTTP/1.1")
	want(sc.Name+"'s path", sc.Path)
	for _, h := range sc.Header {
		if sc.WebSocket() && h[0] == "sec-websocket-key" {
			want(sc.Name+"'s sample key", h[1])
			continue
		}
		want(sc.Name+"'s request header", h[0]+": "+h[1])
	}
	switch {
	case sc.WebSocket():
		want(sc.Name+"'s message", hex.EncodeToString(sc.Body))
		want(sc.Name+"'s message size", strconv.Itoa(len(sc.Body)))
	case sc.Body != nil:
		want(sc.Name+"'s request body", string(sc.WithID(42).Body))
		if sc.Database == "" {
			want(sc.Name+"'s content-length", "content-length: "+strconv.Itoa(len(sc.Body)))
		}
	}
	w := sc.Want
	want(sc.Name+"'s status", "`"+strconv.Itoa(w.Status)+"`")
	if w.ContentType != "" {
		want(sc.Name+"'s content type", "`"+w.ContentType+"`")
	}
	for k, v := range w.Header {
		want(sc.Name+"'s response header", k+": "+v)
	}
	if w.BodySHA256 != "" {
		want(sc.Name+"'s body length", strconv.Itoa(w.BodyLen))
		want(sc.Name+"'s body SHA-256", w.BodySHA256)
	} else if w.Body != nil && !sc.WebSocket() {
		want(sc.Name+"'s body", "`"+string(w.Body)+"`")
	}
}
