package db

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// DefaultSeed is the data set's seed: seed 002's 424242.
const DefaultSeed uint64 = 424242

// The data set at scale 1.
const (
	FullUsers  = 100_000
	FullOrders = 1_000_000
	FullItems  = 3_000_000 // three line items per order on average
)

// SchemaVersion changes whenever the schema or the generator does, so a template built by an
// older bindrace is rebuilt instead of reused.
const SchemaVersion = 1

// Sizes are the row counts of the three tables. Ids run from 1 to the count.
type Sizes struct {
	Users, Orders, Items int64
}

// SizesAt scales the full data set: each table rounded, at least one row; the items are always
// three times the orders.
func SizesAt(scale float64) (Sizes, error) {
	if !(scale > 0) || scale > 100 || math.IsInf(scale, 0) {
		return Sizes{}, fmt.Errorf("scale %v: want 0 < scale <= 100", scale)
	}
	n := func(full float64) int64 { return max(1, int64(math.Round(full*scale))) }
	orders := n(FullOrders)
	return Sizes{Users: n(FullUsers), Orders: orders, Items: 3 * orders}, nil
}

// Dataset is the deterministic data: every row is a pure function of (seed, table, row
// index), from splitmix64 over a counter, so any row can be computed alone, in any order, on
// any machine.
type Dataset struct {
	Seed  uint64
	Scale float64
	Sizes
}

// NewDataset describes the data set for seed and scale.
func NewDataset(seed uint64, scale float64) (Dataset, error) {
	s, err := SizesAt(scale)
	if err != nil {
		return Dataset{}, err
	}
	return Dataset{Seed: seed, Scale: scale, Sizes: s}, nil
}

// User is a row of users.
type User struct {
	ID    int64
	Name  string
	Email string
}

// Order is a row of orders. TotalCents is the sum of its items' qty × price_cents.
type Order struct {
	ID         int64
	UserID     int64
	TotalCents int64
	CreatedAt  time.Time
}

// Item is a row of order_items.
type Item struct {
	ID         int64
	OrderID    int64
	SKU        string
	Qty        int64
	PriceCents int64
}

// Stream tags: one independent random stream per table and purpose.
const (
	streamUsers uint64 = iota + 1
	streamOrders
	streamItems
	streamPairs
	streamSKUPrice
	streamKeys
)

// splitmix64 is Steele, Lea and Flood's mixer: a bijection on 64 bits with good avalanche.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// rnd is the counter-based generator: 64 random bits for (seed, stream, index, field).
func rnd(seed, stream, index, field uint64) uint64 {
	return splitmix64(splitmix64(splitmix64(seed+stream)+index) + field)
}

// below maps 64 random bits to [0, n) without division (Lemire's multiply-shift; the bias is
// at most n/2^64).
func below(r, n uint64) uint64 {
	hi, _ := bits.Mul64(r, n)
	return hi
}

var firstNames = [...]string{
	"Ada", "Alan", "Anita", "Barbara", "Bjarne", "Brian", "Carol", "Claude", "Dennis", "Donald",
	"Edsger", "Frances", "Grace", "Guido", "Hedy", "Ivan", "James", "Jean", "John", "Joan",
	"Ken", "Leslie", "Linus", "Lynn", "Margaret", "Mary", "Niklaus", "Olga", "Peter", "Radia",
	"Rob", "Ruth", "Shafi", "Sophie", "Tim", "Tony", "Ursula", "Vint", "Whitfield", "Yukihiro",
}

var lastNames = [...]string{
	"Allen", "Backus", "Bartik", "Cerf", "Cocke", "Conway", "Dijkstra", "Engelbart", "Floyd", "Goldwasser",
	"Hamilton", "Hoare", "Hopper", "Iverson", "Kahan", "Kay", "Kernighan", "Knuth", "Lamport", "Lovelace",
	"Liskov", "McCarthy", "Milner", "Naur", "Perlman", "Pike", "Ritchie", "Rivest", "Shannon", "Sammet",
	"Stroustrup", "Sutherland", "Tarjan", "Thompson", "Torvalds", "Turing", "Wilson", "Wirth", "Yao", "Zuse",
}

// User returns row i (0-based) of users: id i+1.
func (d Dataset) User(i int64) User {
	r := rnd(d.Seed, streamUsers, uint64(i), 0)
	first := firstNames[below(r, uint64(len(firstNames)))]
	last := lastNames[below(splitmix64(r), uint64(len(lastNames)))]
	id := i + 1
	return User{
		ID:    id,
		Name:  first + " " + last,
		Email: strings.ToLower(first) + "." + strings.ToLower(last) + strconv.FormatInt(id, 10) + "@example.com",
	}
}

// orderEpoch and orderSpan: generated orders were placed in 2024 and 2025 (whole seconds, UTC).
var orderEpoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

const orderSpan = 2 * 365 * 24 * 3600

// Order returns row i (0-based) of orders: id i+1, placed by a uniformly chosen user.
func (d Dataset) Order(i int64) Order {
	first, n := d.OrderItems(i)
	var total int64
	for j := first; j < first+n; j++ {
		it := d.Item(j)
		total += it.Qty * it.PriceCents
	}
	return Order{
		ID:         i + 1,
		UserID:     1 + int64(below(rnd(d.Seed, streamOrders, uint64(i), 0), uint64(d.Users))),
		TotalCents: total,
		CreatedAt:  orderEpoch.Add(time.Duration(below(rnd(d.Seed, streamOrders, uint64(i), 1), orderSpan)) * time.Second),
	}
}

// The items are laid out in pairs of orders sharing six consecutive item rows: the first order
// of pair p has 3+δ items and the second 3−δ, δ in −2..2 drawn per pair. So every order has one
// to five items, the total is exactly three per order, and which order an item belongs to is a
// pure function of the item's index. An odd last order has exactly three.

// pairDelta is δ for pair p.
func (d Dataset) pairDelta(p int64) int64 {
	if 2*p+1 >= d.Orders {
		return 0
	}
	return int64(below(rnd(d.Seed, streamPairs, uint64(p), 0), 5)) - 2
}

// OrderItems returns the 0-based index of order i's first item and how many it has.
func (d Dataset) OrderItems(i int64) (first, n int64) {
	p := i / 2
	delta := d.pairDelta(p)
	if i%2 == 0 {
		return 6 * p, 3 + delta
	}
	return 6*p + 3 + delta, 3 - delta
}

// itemOrder returns the 0-based index of the order item j belongs to.
func (d Dataset) itemOrder(j int64) int64 {
	p := j / 6
	if j%6 < 3+d.pairDelta(p) {
		return 2 * p
	}
	return 2*p + 1
}

// skuCount is the catalogue size; every SKU has one price.
const skuCount = 10_000

// Item returns row j (0-based) of order_items: id j+1.
func (d Dataset) Item(j int64) Item {
	r := rnd(d.Seed, streamItems, uint64(j), 0)
	sku := below(r, skuCount)
	return Item{
		ID:         j + 1,
		OrderID:    d.itemOrder(j) + 1,
		SKU:        "SKU-" + pad5(sku),
		Qty:        1 + int64(below(splitmix64(r), 5)),
		PriceCents: 99 + int64(below(rnd(d.Seed, streamSKUPrice, sku, 0), 9901)), // 0.99 .. 99.99
	}
}

func pad5(n uint64) string {
	s := strconv.FormatUint(n, 10)
	return strings.Repeat("0", max(0, 5-len(s))) + s
}
