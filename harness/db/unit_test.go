// The tests of this package that need no PostgreSQL (the fast tier, make test); the ones that
// start a cluster are in the long tier (cluster_test.go, queries_test.go, store_test.go).

package db

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestClusterMissingBinaries(t *testing.T) {
	_, err := StartCluster(context.Background(), ClusterOptions{BinDir: t.TempDir()})
	if !errors.Is(err, ErrNoPostgres) {
		t.Fatalf("err = %v, want ErrNoPostgres", err)
	}
	if !strings.Contains(err.Error(), "scripts/setup.sh") {
		t.Errorf("error does not say what to do: %v", err)
	}
}

func TestReachable(t *testing.T) {
	dir := t.TempDir()
	locked := dir + "/locked"
	if err := os.Mkdir(locked, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Dir(dir), dir} { // t.TempDir's own directories are 0700
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const stranger = 4242 // owns nothing here
	if reachable(locked+"/cache/pg", stranger, []uint32{4242}) {
		t.Error("a 0700 directory of another user counts as reachable")
	}
	if !reachable(locked+"/cache/pg", 0, nil) {
		t.Error("root cannot reach it")
	}
	if err := os.Chmod(locked, 0o711); err != nil {
		t.Fatal(err)
	}
	if !reachable(locked+"/cache/pg", stranger, []uint32{4242}) {
		t.Error("a 0711 directory counts as unreachable")
	}
	if got := fallbackCacheDir(locked + "/pg"); !strings.HasPrefix(got, "/var/tmp/bindrace-pg-") || got == fallbackCacheDir(dir+"/pg") {
		t.Errorf("fallback %q: want a per-checkout directory under /var/tmp", got)
	}
}

func TestParseCreateOrderRejects(t *testing.T) {
	item := `{"sku":"A","qty":1,"price_cents":1}`
	many := strings.TrimSuffix(strings.Repeat(item+",", MaxOrderItems+1), ",")
	for _, body := range []string{
		``, `[]`, `null`, `{"user_id":1}`, `{"user_id":1,"items":[]}`, `{"user_id":1,"items":null}`,
		`{"user_id":0,"items":[` + item + `]}`,
		`{"user_id":2147483648,"items":[` + item + `]}`,
		`{"user_id":1.5,"items":[` + item + `]}`,
		`{"user_id":"1","items":[` + item + `]}`,
		`{"user_id":1,"items":[{"sku":"","qty":1,"price_cents":1}]}`,
		`{"user_id":1,"items":[{"sku":"` + strings.Repeat("s", MaxSKULen+1) + `","qty":1,"price_cents":1}]}`,
		`{"user_id":1,"items":[{"sku":"a\u0000b","qty":1,"price_cents":1}]}`,
		`{"user_id":1,"items":[{"sku":"a","qty":0,"price_cents":1}]}`,
		`{"user_id":1,"items":[{"sku":"a","qty":101,"price_cents":1}]}`,
		`{"user_id":1,"items":[{"sku":"a","qty":1,"price_cents":0}]}`,
		`{"user_id":1,"items":[{"sku":"a","qty":1,"price_cents":100001}]}`,
		`{"user_id":1,"items":[{"sku":"a","qty":1}]}`,
		`{"user_id":1,"items":[` + many + `]}`,
		`{"user_id":1,"items":[` + item + `]} trailing`,
		`{"USER_ID":1,"items":[` + item + `]}`,
		`{"user_id":1,"items":[{"SKU":"a","qty":1,"price_cents":1}]}`,
		`{"user_id":true,"items":[` + item + `]}`,
		`{"user_id":null,"items":[` + item + `]}`,
		`{"user_id":1e400,"items":[` + item + `]}`,
		`{"user_id":1,"items":[{"sku":5,"qty":1,"price_cents":1}]}`,
		`{"user_id":1,"items":[null]}`,
		`{"user_id":1,"items":{"sku":"a","qty":1,"price_cents":1}}`,
	} {
		if _, err := ParseCreateOrder([]byte(body)); !errors.Is(err, ErrBadInput) || HTTPStatus(err) != 400 {
			t.Errorf("ParseCreateOrder(%.60q) = %v, want ErrBadInput", body, err)
		}
	}
	o, err := ParseCreateOrder([]byte(`{"user_id":2147483647,"items":[` + strings.TrimSuffix(strings.Repeat(item+",", MaxOrderItems), ",") + `]}`))
	if err != nil || len(o.Items) != MaxOrderItems {
		t.Errorf("the largest valid order: %v", err)
	}
	// Numbers as JavaScript reads them; the last of a repeated key; other keys ignored.
	o, err = ParseCreateOrder([]byte(`{"user_id":9,"user_id":7.0,"x":[1],"items":[{"sku":"caf\u00e9","qty":1e1,"price_cents":25E2,"n":null}]}`))
	want := CreateOrder{UserID: 7, Items: []OrderLine{{SKU: "café", Qty: 10, PriceCents: 2500}}}
	if err != nil || fmt.Sprint(o) != fmt.Sprint(want) {
		t.Errorf("ParseCreateOrder = %+v, %v; want %+v", o, err, want)
	}
}

func TestParseID(t *testing.T) {
	for s, want := range map[string]int64{"1": 1, "42": 42, "007": 7, "2147483647": math.MaxInt32} {
		if got, err := ParseID(s); err != nil || got != want {
			t.Errorf("ParseID(%q) = %d, %v", s, got, err)
		}
		if got, err := ParseID([]byte(s)); err != nil || got != want {
			t.Errorf("ParseID([]byte %q) = %d, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "0", "-1", "+1", "1a", " 1", "2147483648", "99999999999", "1.0"} {
		if _, err := ParseID(s); !errors.Is(err, ErrBadInput) {
			t.Errorf("ParseID(%q): %v, want ErrBadInput", s, err)
		}
	}
	if HTTPStatus(ErrNotFound) != 404 || HTTPStatus(fmt.Errorf("x: %w", ErrBadInput)) != 400 || HTTPStatus(pgx.ErrTxClosed) != 500 {
		t.Error("HTTPStatus mapping")
	}
}

// appendJSONString writes what JSON.stringify writes; encoding/json (without HTML escaping)
// agrees on everything but U+2028/U+2029, which JSON.stringify leaves as they are.
func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", `quote " backslash \ slash /`, "\x00\x01\x08\x09\x0a\x0c\x0d\x1f\x7f",
		"<>&", "naïve café ☕ 😀", "bad \xff utf-8 \xc3"} {
		got := appendJSONString(nil, []byte(s))
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.Encode(s)
		want := strings.TrimSuffix(b.String(), "\n")
		// encoding/json writes \u0008 and \u000c; JSON.stringify writes \b and \f.
		want = strings.NewReplacer(`\u0008`, `\b`, `\u000c`, `\f`).Replace(want)
		if string(got) != want {
			t.Errorf("appendJSONString(%q) = %s, want %s", s, got, want)
		}
	}
}

func TestOpenRejectsBadOptions(t *testing.T) {
	ctx := context.Background()
	for _, o := range []Options{
		{URL: "mysql://localhost/x"},
		{URL: "postgres://127.0.0.1:1/bindrace"},                       // the admin database is the trial database
		{URL: "postgres://127.0.0.1:1/postgres", Template: "bindrace"}, // the template is the trial database
		{URL: "postgres://127.0.0.1:1/postgres", Scale: -1},
	} {
		if _, err := Open(ctx, o); err == nil {
			t.Errorf("Open(%+v) accepted", o)
		}
	}
	if got := redact("postgres://u:secret@h/db"); strings.Contains(got, "secret") {
		t.Errorf("redact left the password: %s", got)
	}
}

// A user's --db-url names the trial database (its template beside it) or, naming none or the
// maintenance database, keeps the harness's own names; the server is always administered
// through postgres.
func TestUserURL(t *testing.T) {
	for _, c := range []struct {
		url, admin, database, template string
	}{
		{"postgres://u:p@h:5432/userdata?sslmode=disable", "postgres://u:p@h:5432/postgres?sslmode=disable", "userdata", "userdata_template"},
		{"postgres://u:p@h:5432", "postgres://u:p@h:5432/postgres", "", ""},
		{"postgresql://h/postgres", "postgresql://h/postgres", "", ""},
	} {
		o, err := UserURL(c.url)
		if err != nil || o.URL != c.admin || o.Database != c.database || o.Template != c.template {
			t.Errorf("UserURL(%s) = %+v, %v; want admin %s, database %q, template %q", c.url, o, err, c.admin, c.database, c.template)
		}
	}
	for _, bad := range []string{"mysql://h/x", "postgres://h/template1", "::"} {
		if o, err := UserURL(bad); err == nil {
			t.Errorf("UserURL(%s) = %+v, accepted", bad, o)
		}
	}
}
