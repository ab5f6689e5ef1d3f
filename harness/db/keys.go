package db

import (
	"fmt"
	"math"
	"math/bits"
)

// KeyDist is how a key sequence picks ids.
type KeyDist string

const (
	KeysUniform KeyDist = "uniform" // every id in the range equally often
	KeysHot     KeyDist = "hot"     // one id, every time (seed 002's hot-key workload)
	KeysZipf    KeyDist = "zipf"    // skewed: the r-th most requested id about 1/r^θ as often as the first
)

// DefaultZipfTheta is the skew of KeysZipf (YCSB's default).
const DefaultZipfTheta = 0.99

// ParseKeyDist accepts "uniform" (also ""), "hot" and "zipf".
func ParseKeyDist(s string) (KeyDist, error) {
	switch KeyDist(s) {
	case "", KeysUniform:
		return KeysUniform, nil
	case KeysHot, KeysZipf:
		return KeyDist(s), nil
	}
	return "", fmt.Errorf("key distribution %q: want uniform, hot or zipf", s)
}

// KeyOptions describe a key sequence.
type KeyOptions struct {
	Dist     KeyDist // "": KeysUniform
	Min, Max int64   // the id range, inclusive (e.g. 1 and Sizes.Users)
	Seed     uint64  // the same seed gives the same sequence
	Theta    float64 // KeysZipf's skew, 0 < θ < 1; 0: DefaultZipfTheta
	Hot      int64   // KeysHot's id; 0: one picked from Seed
}

// Keys is a deterministic sequence of ids: At(i) is a pure function of the options and i, so
// any number of load-generator workers can draw from one sequence without sharing state.
type Keys struct {
	dist     KeyDist
	min      int64
	n        uint64
	seed     uint64
	hot      int64
	permA    uint64 // zipf: rank r is key min + (permA*r + permB) mod n
	permB    uint64
	theta    float64
	zetaN    float64
	alpha    float64
	eta      float64
	halfPowT float64 // 0.5^θ
}

// NewKeys checks o and precomputes what the distribution needs (zipf: ζ(n, θ), O(n) once).
func NewKeys(o KeyOptions) (*Keys, error) {
	dist, err := ParseKeyDist(string(o.Dist))
	if err != nil {
		return nil, err
	}
	if o.Min > o.Max {
		return nil, fmt.Errorf("key range %d..%d is empty", o.Min, o.Max)
	}
	k := &Keys{dist: dist, min: o.Min, n: uint64(o.Max-o.Min) + 1, seed: o.Seed}
	switch dist {
	case KeysHot:
		k.hot = o.Hot
		if k.hot == 0 {
			k.hot = o.Min + int64(below(rnd(o.Seed, streamKeys, 0, 1), k.n))
		}
		if k.hot < o.Min || k.hot > o.Max {
			return nil, fmt.Errorf("hot key %d outside %d..%d", k.hot, o.Min, o.Max)
		}
	case KeysZipf:
		k.theta = o.Theta
		if k.theta == 0 {
			k.theta = DefaultZipfTheta
		}
		if !(k.theta > 0 && k.theta < 1) {
			return nil, fmt.Errorf("zipf theta %v: want 0 < theta < 1", o.Theta)
		}
		k.initZipf()
	}
	return k, nil
}

// At is the i-th key of the sequence.
func (k *Keys) At(i uint64) int64 {
	switch k.dist {
	case KeysHot:
		return k.hot
	case KeysZipf:
		return k.min + int64(k.permute(k.zipfRank(i)))
	}
	return k.min + int64(below(rnd(k.seed, streamKeys, i, 0), k.n))
}

// Fill sets dst[j] to At(from + j).
func (k *Keys) Fill(dst []int64, from uint64) {
	for j := range dst {
		dst[j] = k.At(from + uint64(j))
	}
}

// initZipf prepares Gray et al.'s closed-form zipfian generator ("Quickly generating
// billion-record synthetic databases", SIGMOD 1994), and a permutation of the ranks so the
// popular ids are scattered over the range (and over the index) instead of being the lowest.
func (k *Keys) initZipf() {
	n := float64(k.n)
	for i := uint64(1); i <= k.n; i++ {
		k.zetaN += 1 / math.Pow(float64(i), k.theta)
	}
	k.halfPowT = math.Pow(0.5, k.theta)
	zeta2 := 1 + k.halfPowT
	k.alpha = 1 / (1 - k.theta)
	k.eta = (1 - math.Pow(2/n, 1-k.theta)) / (1 - zeta2/k.zetaN)
	if k.n > 1 {
		a := 1 + below(rnd(k.seed, streamKeys, 0, 2), k.n-1)
		for gcd(a, k.n) != 1 {
			a = a%(k.n-1) + 1
		}
		k.permA = a
		k.permB = below(rnd(k.seed, streamKeys, 0, 3), k.n)
	}
}

// zipfRank is the 0-based popularity rank of the i-th draw.
func (k *Keys) zipfRank(i uint64) uint64 {
	u := float64(rnd(k.seed, streamKeys, i, 0)>>11) / (1 << 53) // uniform in [0, 1)
	uz := u * k.zetaN
	switch {
	case uz < 1:
		return 0
	case uz < 1+k.halfPowT:
		return 1
	}
	r := uint64(float64(k.n) * math.Pow(k.eta*u-k.eta+1, k.alpha))
	return min(r, k.n-1)
}

// permute maps a rank to an offset in the range, a bijection on [0, n).
func (k *Keys) permute(r uint64) uint64 {
	if k.n == 1 {
		return 0
	}
	hi, lo := bits.Mul64(k.permA, r)
	_, rem := bits.Div64(hi%k.n, lo, k.n)
	return (rem + k.permB) % k.n
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
