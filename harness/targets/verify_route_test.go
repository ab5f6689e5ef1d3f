package targets

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/db"
	"github.com/bindrace/bindrace/harness/scenario"
)

// TestVerifyNamesMissingRoute: against a server that serves no route (404 to everything) or
// one that closes every connection, each scenario fails with a mismatch that names both the
// scenario and the route it asked for (method and path), so a user building a target reads
// what to add without looking up the scenario.
func TestVerifyNamesMissingRoute(t *testing.T) {
	notFound := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notFound.Close)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()

	for _, srv := range []struct{ name, addr string }{
		{"404", strings.TrimPrefix(notFound.URL, "http://")},
		{"closed", ln.Addr().String()},
	} {
		t.Run(srv.name, func(t *testing.T) {
			err := Verify(context.Background(), "empty", srv.addr, scenario.All())
			if err == nil {
				t.Fatal("a server without the routes passed verification")
			}
			for _, sc := range scenario.All() {
				route := sc.Method + " " + sc.Path
				named := false
				for _, e := range Mismatches(err) {
					var m *Mismatch
					if errors.As(e, &m) && m.Scenario == sc.Name && strings.Contains(m.Error(), route) {
						named = true
					}
				}
				if !named {
					t.Errorf("no mismatch of scenario %s names its route %q:\n%v", sc.Name, route, err)
				}
			}
		})
	}
}

// TestDBRouteMissingNamesRoute: the database check's message for a target without the
// database routes (404 or 405 that is not the routes' own "no such row") or without a database
// (503) names the scenario and the request's method and path. VerifyDB itself needs
// PostgreSQL; the long tier's TestVerifyDBTargets runs it against binding-static.
func TestDBRouteMissingNamesRoute(t *testing.T) {
	for _, sc := range scenario.DB() {
		s := sc.WithID(7)
		route := s.Method + " " + s.Path
		for _, status := range []int{404, 405, 503} {
			v := &dbVerifier{target: "empty"}
			if !v.routeMissing(sc, s.Method, s.Path, status, []byte("404 page not found\n")) {
				t.Fatalf("%s answered %d: not taken for a missing route or database", route, status)
			}
			if len(v.errs) != 1 || !strings.Contains(v.errs[0].Error(), "scenario "+sc.Name+": ") ||
				!strings.Contains(v.errs[0].Error(), route) {
				t.Errorf("%s answered %d: %v, want one mismatch naming scenario %s and %q", route, status, v.errs, sc.Name, route)
			}
		}
		// The routes' own 404 (no such user) starts with db.ErrorPrefix: a served route.
		v := &dbVerifier{target: "served"}
		if v.routeMissing(sc, s.Method, s.Path, 404, []byte(db.ErrorPrefix+"not found\n")) || len(v.errs) > 0 {
			t.Errorf("%s: a 404 of the database routes themselves was taken for a missing route: %v", route, v.errs)
		}
	}
}
