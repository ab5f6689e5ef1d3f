package scenario

import (
	"bytes"
	"strconv"
	"strings"
)

// The database scenarios (seed 002): served from PostgreSQL by every target that registers the
// routes of harness/db. Their Path, and create-order's Body, hold IDPlaceholder, which the load
// generator replaces with a key per request (AppendRequest); Want says the status and content
// type only, since the body is the database's (verify computes it with harness/db's Expect*).

// IDPlaceholder is replaced by a user or order id in a database scenario's Path and Body.
const IDPlaceholder = "{id}"

// Key ranges of the database scenarios: which table an IDPlaceholder draws its ids from.
const (
	KeyUsers  = "users"
	KeyOrders = "orders"
)

var dbScenarios = []Scenario{
	{Name: "get-user", Method: "GET", Path: "/db/users/{id}", Database: KeyUsers,
		Want: Want{Status: 200, ContentType: "application/json", JSON: true}},
	{Name: "list-orders", Method: "GET", Path: "/db/users/{id}/orders", Database: KeyUsers,
		Want: Want{Status: 200, ContentType: "application/json", JSON: true}},
	{Name: "order-total", Method: "GET", Path: "/db/orders/{id}/total", Database: KeyOrders,
		Want: Want{Status: 200, ContentType: "application/json", JSON: true}},
	{Name: "create-order", Method: "POST", Path: "/db/orders", Database: KeyUsers, Writes: true,
		Header: [][2]string{{"content-type", "application/json"}},
		Body:   []byte(`{"user_id":{id},"items":[{"sku":"SKU-00042","qty":2,"price_cents":1999},{"sku":"SKU-01234","qty":1,"price_cents":550}]}`),
		Want:   Want{Status: 201, ContentType: "application/json", JSON: true}},
}

// DB lists the database scenarios in their canonical order.
func DB() []Scenario { return append([]Scenario(nil), dbScenarios...) }

// DBNames lists the database scenarios' names.
func DBNames() []string {
	names := make([]string, len(dbScenarios))
	for i, s := range dbScenarios {
		names[i] = s.Name
	}
	return names
}

// WithID is the scenario with IDPlaceholder replaced by id in its Path and Body (a fixed
// request, e.g. for verify).
func (s Scenario) WithID(id int64) Scenario {
	num := strconv.AppendInt(nil, id, 10)
	s.Path = string(bytes.ReplaceAll([]byte(s.Path), []byte(IDPlaceholder), num))
	if s.Body != nil {
		s.Body = bytes.ReplaceAll(s.Body, []byte(IDPlaceholder), num)
	}
	return s
}

// AppendRequest appends the request Request renders, with IDPlaceholder replaced by id, to
// dst; it allocates nothing once dst has room (the load generator's per-request builder).
func (s Scenario) AppendRequest(dst []byte, host string, id int64) []byte {
	var num [20]byte
	n := strconv.AppendInt(num[:0], id, 10)
	dst = append(dst, s.Method...)
	dst = append(dst, ' ')
	dst = appendReplaced(dst, s.Path, n)
	dst = append(dst, " HTTP/1.1\r\nHost: "...)
	dst = append(dst, host...)
	dst = append(dst, "\r\n"...)
	for _, h := range s.Header {
		dst = append(append(append(append(dst, h[0]...), ": "...), h[1]...), "\r\n"...)
	}
	if s.Body != nil {
		size := len(s.Body) + bytes.Count(s.Body, []byte(IDPlaceholder))*(len(n)-len(IDPlaceholder))
		dst = append(dst, "content-length: "...)
		dst = strconv.AppendInt(dst, int64(size), 10)
		dst = append(dst, "\r\n"...)
	}
	dst = append(dst, "\r\n"...)
	return appendReplacedBytes(dst, s.Body, n)
}

// appendReplaced appends src with every IDPlaceholder replaced by id.
func appendReplaced(dst []byte, src string, id []byte) []byte {
	for {
		i := strings.Index(src, IDPlaceholder)
		if i < 0 {
			return append(dst, src...)
		}
		dst = append(append(dst, src[:i]...), id...)
		src = src[i+len(IDPlaceholder):]
	}
}

// appendReplacedBytes is appendReplaced for a body.
func appendReplacedBytes(dst, src, id []byte) []byte {
	for {
		i := bytes.Index(src, []byte(IDPlaceholder))
		if i < 0 {
			return append(dst, src...)
		}
		dst = append(append(dst, src[:i]...), id...)
		src = src[i+len(IDPlaceholder):]
	}
}
