package targets

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"
	"time"

	"github.com/bindrace/bindrace/harness/scenario"
)

// Mismatch is one way a target's response differs from what its scenario wants.
type Mismatch struct {
	Target, Scenario, Field string
	Expected, Got           string // already quoted/truncated for display
}

func (m *Mismatch) Error() string {
	return fmt.Sprintf("target %s, scenario %s: %s: expected %s, got %s", m.Target, m.Scenario, m.Field, m.Expected, m.Got)
}

// maxBody bounds what verification reads of a non-streamed body: a broken server sending
// without end must not exhaust memory.
const maxBody = 1 << 20

// Verify sends each scenario's request to addr once with a real HTTP client and checks status,
// content type (by media type), required headers and body; a WebSocket scenario is checked by
// a real WebSocket exchange instead (verifyWS). It returns nil or every *Mismatch,
// joined (errors.As and errors.Join's Unwrap() []error reach them).
func Verify(ctx context.Context, target, addr string, scs []scenario.Scenario) error {
	client := &http.Client{
		// Compression would hide what the server really sent; proxies have no place on loopback.
		Transport: &http.Transport{DisableCompression: true, Proxy: nil},
		Timeout:   30 * time.Second,
		// A redirect is a wrong answer, not something to follow.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	defer client.CloseIdleConnections()
	var errs []error
	for _, sc := range scs {
		var found []*Mismatch
		switch {
		case sc.Database != "":
			found = []*Mismatch{{Target: target, Scenario: sc.Name, Field: "database",
				Expected: "a check against the database (VerifyDB)", Got: "Verify has no database: race and matrix start PostgreSQL and verify database scenarios against it"}}
		case sc.WebSocket():
			found = verifyWS(ctx, target, addr, sc)
		default:
			found = verifyOne(ctx, client, target, addr, sc)
		}
		for _, m := range found {
			errs = append(errs, m)
		}
	}
	return errors.Join(errs...)
}

func verifyOne(ctx context.Context, client *http.Client, target, addr string, sc scenario.Scenario) []*Mismatch {
	var ms []*Mismatch
	add := func(field, expected, got string) {
		ms = append(ms, &Mismatch{Target: target, Scenario: sc.Name, Field: field, Expected: expected, Got: got})
	}
	var body io.Reader
	if sc.Body != nil {
		body = bytes.NewReader(sc.Body)
	}
	req, err := http.NewRequestWithContext(ctx, sc.Method, "http://"+addr+sc.Path, body)
	if err != nil {
		add("request", "a valid request", err.Error())
		return ms
	}
	for _, h := range sc.Header {
		req.Header.Set(h[0], h[1])
	}
	resp, err := client.Do(req)
	if err != nil {
		add("response", "an HTTP response to "+sc.Method+" "+sc.Path, err.Error())
		return ms
	}
	defer resp.Body.Close()

	checkHead(resp, sc.Want, sc.Method+" "+sc.Path, add)
	checkBody(resp.Body, sc.Want, add)
	return ms
}

// checkHead compares a response's status, content type and headers with w. A wrong status
// names the route it answered (method and path): a 404 or 405 means the target lacks that
// route, and the mismatch should say which to add.
func checkHead(resp *http.Response, w scenario.Want, route string, add func(field, expected, got string)) {
	if resp.StatusCode != w.Status {
		add("status", fmt.Sprint(w.Status), fmt.Sprintf("%s to %s", statusText(resp), route))
	}
	if w.ContentType != "" {
		ct := resp.Header.Get("Content-Type")
		media, _, err := mime.ParseMediaType(ct)
		if ct == "" {
			add("content-type", quote(w.ContentType), "no Content-Type header")
		} else if err != nil || !strings.EqualFold(media, w.ContentType) {
			add("content-type", quote(w.ContentType), quote(ct))
		}
	}
	for k, v := range w.Header {
		if got := resp.Header.Values(k); len(got) == 0 {
			add("header "+k, quote(v), "no "+k+" header")
		} else if len(got) > 1 || got[0] != v {
			add("header "+k, quote(v), quote(strings.Join(got, ", ")))
		}
	}
}

// checkBody compares a response body with w: its length and SHA-256 for a large body, its
// JSON value for a JSON one, its bytes otherwise.
func checkBody(r io.Reader, w scenario.Want, add func(field, expected, got string)) {
	if w.BodySHA256 != "" {
		h := sha256.New()
		n, err := io.Copy(h, r)
		if err != nil {
			add("body", fmt.Sprintf("%d bytes", w.BodyLen), fmt.Sprintf("read error after %d bytes: %v", n, err))
			return
		}
		if n != int64(w.BodyLen) {
			add("body length", fmt.Sprint(w.BodyLen), fmt.Sprint(n))
		}
		if sum := hex.EncodeToString(h.Sum(nil)); sum != w.BodySHA256 {
			add("body sha256", w.BodySHA256, sum)
		}
		return
	}
	got, err := io.ReadAll(io.LimitReader(r, maxBody+1))
	if err != nil {
		add("body", quoteBody(w.Body), fmt.Sprintf("read error after %d bytes: %v", len(got), err))
		return
	}
	if len(got) > maxBody {
		add("body", quoteBody(w.Body), fmt.Sprintf("more than %d bytes", maxBody))
		return
	}
	if w.JSON {
		var want, have any
		if err := json.Unmarshal(w.Body, &want); err != nil {
			add("body (JSON)", "valid scenario JSON", err.Error())
		} else if err := json.Unmarshal(got, &have); err != nil {
			add("body (JSON)", quoteBody(w.Body), quoteBody(got)+" (not JSON: "+err.Error()+")")
		} else if !reflect.DeepEqual(want, have) {
			add("body (JSON)", quoteBody(w.Body), quoteBody(got))
		}
	} else if !bytes.Equal(got, w.Body) {
		add("body", quoteBody(w.Body), quoteBody(got))
	}
}

// statusText is the response's status code and reason as the server sent them ("404 Not
// Found"), or the code alone when it sent no reason.
func statusText(resp *http.Response) string {
	if st := strings.TrimSpace(resp.Status); st != "" {
		return st
	}
	return fmt.Sprint(resp.StatusCode)
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

// quoteBody quotes a body, cut to 200 bytes with its full length said.
func quoteBody(b []byte) string {
	if len(b) <= 200 {
		return fmt.Sprintf("%q", b)
	}
	return fmt.Sprintf("%q… (%d bytes)", b[:200], len(b))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Mismatches lists the errors a Verify error joins (each a *Mismatch or a failed request), or
// the error itself.
func Mismatches(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
