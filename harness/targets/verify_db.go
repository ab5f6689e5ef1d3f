package targets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bindrace/bindrace/harness/db"
	"github.com/bindrace/bindrace/harness/scenario"
)

// DBCheck is what VerifyDB checks answers against: the trial database the target serves
// from (freshly reset: the expected answers are read from it) and its table sizes.
type DBCheck struct {
	URL   string
	Sizes db.Sizes
}

// VerifyDB checks the database scenarios among scs on the target at addr against the
// database itself: for a few ids (the first, the middle, the last and one past the end) the
// status and the exact body the harness's own queries expect (db.ExpectUser and its siblings),
// a malformed id (400), and for create-order a POST whose order must then be in the database
// with the request's items (db.CheckCreatedOrder) and one for an unknown user (400). The
// database is written by create-order: reset it afterwards. It returns nil or the *Mismatch
// errors, joined; a target without the routes fails with a message saying so.
func VerifyDB(ctx context.Context, target, addr string, scs []scenario.Scenario, chk DBCheck) error {
	conn, err := pgx.Connect(ctx, chk.URL)
	if err != nil {
		return fmt.Errorf("verify %s: connecting to the trial database: %w", target, err)
	}
	defer conn.Close(context.Background())
	client := &http.Client{Transport: &http.Transport{DisableCompression: true, Proxy: nil}, Timeout: 30 * time.Second}
	defer client.CloseIdleConnections()
	v := dbVerifier{ctx: ctx, client: client, conn: conn, target: target, addr: addr}
	for _, sc := range scs {
		if sc.Database == "" {
			continue
		}
		max := chk.Sizes.Users
		if sc.Database == scenario.KeyOrders {
			max = chk.Sizes.Orders
		}
		if sc.Method == "POST" {
			v.create(sc, max)
			continue
		}
		v.missing = false
		for _, id := range []int64{1, max/2 + 1, max, max + 1} {
			if v.read(sc, id); v.missing {
				break // said once: the target lacks the route or the database
			}
		}
		if !v.missing {
			v.badID(sc)
		}
	}
	return errors.Join(v.errs...)
}

type dbVerifier struct {
	ctx          context.Context
	client       *http.Client
	conn         *pgx.Conn
	target, addr string
	errs         []error
	missing      bool // routeMissing said so for the scenario being checked
}

func (v *dbVerifier) add(sc scenario.Scenario, field, expected, got string) {
	v.errs = append(v.errs, &Mismatch{Target: v.target, Scenario: sc.Name, Field: field, Expected: expected, Got: got})
}

// do sends one request and returns status, media type and body; a failure is recorded.
func (v *dbVerifier) do(sc scenario.Scenario, method, path string, body []byte) (int, string, []byte, bool) {
	req, err := http.NewRequestWithContext(v.ctx, method, "http://"+v.addr+path, bytes.NewReader(body))
	if err != nil {
		v.add(sc, "request", "a valid request", err.Error())
		return 0, "", nil, false
	}
	for _, h := range sc.Header {
		req.Header.Set(h[0], h[1])
	}
	resp, err := v.client.Do(req)
	if err != nil {
		v.add(sc, "response", "an HTTP response to "+method+" "+path, err.Error())
		return 0, "", nil, false
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		v.add(sc, "body", "a body", err.Error())
		return 0, "", nil, false
	}
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return resp.StatusCode, media, got, true
}

// routeMissing records the clear message for a target that does not serve the database
// routes (404 for a path every id hits) or was started without a database (503). It names the
// request's method and path, so the user reads which route to add.
func (v *dbVerifier) routeMissing(sc scenario.Scenario, method, path string, status int, body []byte) bool {
	v.missing = true
	switch status {
	case 503:
		v.add(sc, "database", "a target started with the database (bindrace passes "+db.EnvURL+")",
			fmt.Sprintf("%s %s answered 503: %s", method, path, quoteBody(bytes.TrimSpace(body))))
		return true
	case 404, 405:
		if !bytes.HasPrefix(body, []byte(db.ErrorPrefix)) {
			v.add(sc, "route", "the database routes of harness/db (GET /db/users/:id, ...)",
				fmt.Sprintf("%s %s answered %d %s: this target does not serve the database scenarios", method, path, status, quoteBody(bytes.TrimSpace(body))))
			return true
		}
	}
	v.missing = false
	return false
}

func (v *dbVerifier) read(sc scenario.Scenario, id int64) {
	var want db.Answer
	var err error
	switch sc.Name {
	case "get-user":
		want, err = db.ExpectUser(v.ctx, v.conn, id)
	case "list-orders":
		want, err = db.ExpectUserOrders(v.ctx, v.conn, id)
	case "order-total":
		want, err = db.ExpectOrderTotal(v.ctx, v.conn, id)
	default:
		err = fmt.Errorf("no expected answer for %s", sc.Name)
	}
	if err != nil {
		v.add(sc, "expected answer", "the database's answer", err.Error())
		return
	}
	path := sc.WithID(id).Path
	status, media, body, ok := v.do(sc, sc.Method, path, nil)
	if !ok || (status != want.Status && v.routeMissing(sc, sc.Method, path, status, body)) {
		return
	}
	v.check(sc, path, want, status, media, body)
}

func (v *dbVerifier) check(sc scenario.Scenario, path string, want db.Answer, status int, media string, body []byte) {
	if status != want.Status {
		v.add(sc, path+": status", strconv.Itoa(want.Status), fmt.Sprintf("%d %s", status, quoteBody(body)))
		return
	}
	if want.Status >= 300 {
		return // error bodies are not part of the contract
	}
	if media != "application/json" {
		v.add(sc, path+": content-type", `"application/json"`, quote(media))
	}
	if !bytes.Equal(body, want.Body) {
		v.add(sc, path+": body", quoteBody(want.Body), quoteBody(body))
	}
}

func (v *dbVerifier) badID(sc scenario.Scenario) {
	path := string(bytes.ReplaceAll([]byte(sc.Path), []byte(scenario.IDPlaceholder), []byte("x1")))
	status, _, body, ok := v.do(sc, sc.Method, path, nil)
	if ok && status != 400 && !v.routeMissing(sc, sc.Method, path, status, body) {
		v.add(sc, path+": status", "400 (a malformed id)", fmt.Sprintf("%d %s", status, quoteBody(body)))
	}
}

func (v *dbVerifier) create(sc scenario.Scenario, users int64) {
	s := sc.WithID(users/2 + 1)
	req, err := db.ParseCreateOrder(s.Body)
	if err != nil {
		v.add(sc, "scenario body", "a valid create-order body", err.Error())
		return
	}
	status, media, body, ok := v.do(sc, s.Method, s.Path, s.Body)
	if !ok || (status != 201 && v.routeMissing(sc, s.Method, s.Path, status, body)) {
		return
	}
	if status != 201 {
		v.add(sc, "status", "201", fmt.Sprintf("%d %s", status, quoteBody(body)))
		return
	}
	if media != "application/json" {
		v.add(sc, "content-type", `"application/json"`, quote(media))
	}
	if err := db.CheckCreatedOrder(v.ctx, v.conn, body, req); err != nil {
		v.add(sc, "created order", "the order in the database", err.Error())
	}
	unknown := sc.WithID(users + 1)
	if status, _, body, ok := v.do(sc, unknown.Method, unknown.Path, unknown.Body); ok && status != 400 {
		v.add(sc, "unknown user", "400", fmt.Sprintf("%d %s", status, quoteBody(body)))
	}
}
