package db

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// How a target server learns its database: the harness sets these in the server's
// environment (not its argv, which every user of the machine can read: the URL carries a
// password). A server started without EnvURL answers the four routes with 503.
const (
	EnvURL  = "BINDRACE_DB_URL"  // the trial database's postgres:// URL (Store.URL())
	EnvPool = "BINDRACE_DB_POOL" // pool size; "" or 0: DefaultPoolSize
)

// RouteKind is one of the four database routes.
type RouteKind int

const (
	RouteGetUser     RouteKind = iota // GET /db/users/:id
	RouteListOrders                   // GET /db/users/:id/orders
	RouteOrderTotal                   // GET /db/orders/:id/total
	RouteCreateOrder                  // POST /db/orders
)

// Route is a database route as every target registers it (":id" marks the id segment).
type Route struct {
	Kind         RouteKind
	Method, Path string
}

// Routes are the four database routes, in the scenarios' order.
var Routes = []Route{
	{RouteGetUser, "GET", "/db/users/:id"},
	{RouteListOrders, "GET", "/db/users/:id/orders"},
	{RouteOrderTotal, "GET", "/db/orders/:id/total"},
	{RouteCreateOrder, "POST", "/db/orders"},
}

// QueryTimeout bounds one request's database work in a target server; past it the request is
// answered 500 (a query error, counted as such by the load generator).
const QueryTimeout = 10 * time.Second

// ErrorPrefix begins every error body of the database routes, so a client tells a 404 for a
// missing row from a server without the route.
const ErrorPrefix = "bindrace db: "

// errNoDatabase is the 503 body of a server started without a database.
var errNoDatabase = fmt.Sprintf(ErrorPrefix+"no database: this server was started without %s (bindrace passes it when a db scenario runs)\n", EnvURL)

// QueriesFromEnv opens the pool a target server uses, from EnvURL and EnvPool. Without EnvURL
// it returns nil and no error: the server then answers the database routes with 503.
func QueriesFromEnv(ctx context.Context) (*Queries, error) {
	url := os.Getenv(EnvURL)
	if url == "" {
		return nil, nil
	}
	size := 0
	if s := os.Getenv(EnvPool); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > 1000 {
			return nil, fmt.Errorf("%s=%q: want a pool size 0..1000", EnvPool, s)
		}
		size = n
	}
	q, err := NewQueries(ctx, url, PoolOptions{Size: size})
	if err != nil {
		return nil, fmt.Errorf("database from %s: %w", EnvURL, redactErr(err, url))
	}
	return q, nil
}

// Handle answers one request to a database route: the status and its body appended to dst.
// id is the ":id" segment (unused by create-order), body the request body (create-order's).
// A 2xx body is JSON; any other is a line of text beginning with ErrorPrefix. A nil q answers 503 (no database).
func (q *Queries) Handle(ctx context.Context, dst []byte, k RouteKind, id, body []byte) (int, []byte) {
	if q == nil {
		return 503, append(dst, errNoDatabase...)
	}
	ctx, cancel := context.WithTimeout(ctx, QueryTimeout)
	defer cancel()
	start := len(dst)
	var out []byte
	var err error
	status := 200
	if k == RouteCreateOrder {
		var o CreateOrder
		if o, err = ParseCreateOrder(body); err == nil {
			out, err = q.createOrder(ctx, dst, o)
			status = 201
		}
	} else {
		var n int64
		if n, err = ParseID(id); err == nil {
			out, err = q.appendByKind(ctx, dst, k, n)
		}
	}
	if err != nil {
		return HTTPStatus(err), append(append(append(dst[:start], ErrorPrefix...), err.Error()...), '\n')
	}
	return status, out
}

func (q *Queries) appendByKind(ctx context.Context, dst []byte, k RouteKind, id int64) ([]byte, error) {
	switch k {
	case RouteGetUser:
		return q.AppendUser(ctx, dst, id)
	case RouteListOrders:
		return q.AppendUserOrders(ctx, dst, id)
	case RouteOrderTotal:
		return q.AppendOrderTotal(ctx, dst, id)
	}
	return dst, fmt.Errorf("unknown database route %d", k)
}

// redactErr hides url's password should err quote the URL.
func redactErr(err error, url string) error {
	return fmt.Errorf("%s", strings.ReplaceAll(err.Error(), url, redact(url)))
}
