package db

import (
	"testing"
	"time"
)

func TestSizesAt(t *testing.T) {
	for scale, want := range map[float64]Sizes{
		1:     {100_000, 1_000_000, 3_000_000},
		0.01:  {1_000, 10_000, 30_000},
		0.002: {200, 2_000, 6_000},
		1e-9:  {1, 1, 3},
	} {
		if got, err := SizesAt(scale); err != nil || got != want {
			t.Errorf("SizesAt(%v) = %+v, %v; want %+v", scale, got, err, want)
		}
	}
	for _, bad := range []float64{0, -1, 101} {
		if _, err := SizesAt(bad); err == nil {
			t.Errorf("SizesAt(%v) accepted", bad)
		}
	}
}

// The generator is pinned: a change to it must come with a new SchemaVersion, or templates
// seeded before would be reused with other data. Update these rows together with it.
func TestGeneratorIsPinned(t *testing.T) {
	d, err := NewDataset(DefaultSeed, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.User(0), (User{1, "Leslie Allen", "leslie.allen1@example.com"}); got != want {
		t.Errorf("User(0) = %+v, want %+v", got, want)
	}
	wantOrder := Order{ID: 1, UserID: 40095, TotalCents: 61822, CreatedAt: time.Date(2024, 5, 10, 18, 56, 49, 0, time.UTC)}
	if got := d.Order(0); got != wantOrder {
		t.Errorf("Order(0) = %+v, want %+v", got, wantOrder)
	}
	if got, want := d.Item(2_999_999), (Item{3_000_000, 1_000_000, "SKU-09498", 4, 9358}); got != want {
		t.Errorf("Item(2999999) = %+v, want %+v", got, want)
	}
	if SchemaVersion != 1 {
		t.Errorf("SchemaVersion %d: update the pinned rows above with it", SchemaVersion)
	}
}

// The item layout: every order has 1..5 items, contiguous, the orders' ranges tile the items
// exactly, and each item's order is the one whose range holds it (odd order counts too).
func TestItemLayout(t *testing.T) {
	for _, scale := range []float64{0.002, 0.000003, 0.000001} {
		d, err := NewDataset(DefaultSeed, scale)
		if err != nil {
			t.Fatal(err)
		}
		next := int64(0)
		hist := map[int64]int{}
		for i := int64(0); i < d.Orders; i++ {
			first, n := d.OrderItems(i)
			if first != next || n < 1 || n > 5 {
				t.Fatalf("scale %v: order %d has items %d+%d, want them to start at %d, 1..5 of them", scale, i, first, n, next)
			}
			for j := first; j < first+n; j++ {
				if it := d.Item(j); it.OrderID != i+1 {
					t.Fatalf("scale %v: item %d belongs to order %d, want %d", scale, j, it.OrderID, i+1)
				}
			}
			next += n
			hist[n]++
		}
		if next != d.Items {
			t.Fatalf("scale %v: orders hold %d items, want %d", scale, next, d.Items)
		}
		if scale == 0.002 && len(hist) != 5 {
			t.Errorf("items per order %v: want all of 1..5 to occur", hist)
		}
	}
}

func TestRowsStayInTheirRanges(t *testing.T) {
	d, _ := NewDataset(DefaultSeed, 0.01)
	end := orderEpoch.Add(orderSpan * time.Second)
	for i := int64(0); i < d.Orders; i++ {
		o := d.Order(i)
		if o.UserID < 1 || o.UserID > d.Users || o.CreatedAt.Before(orderEpoch) || !o.CreatedAt.Before(end) || o.TotalCents < 1 {
			t.Fatalf("order %+v out of range", o)
		}
	}
	for j := int64(0); j < d.Items; j++ {
		it := d.Item(j)
		if it.Qty < 1 || it.Qty > 5 || it.PriceCents < 99 || it.PriceCents > 9999 || len(it.SKU) != 9 {
			t.Fatalf("item %+v out of range", it)
		}
	}
}
