package demo

import (
	"math/rand/v2"
	"time"
)

// rng is the generator's only source of randomness. Every draw goes through it, in one goroutine
// and in a fixed order, so a seed names exactly one data set.
type rng struct{ r *rand.Rand }

func newRNG(seed int64, stream uint64) *rng {
	return &rng{r: rand.New(rand.NewPCG(uint64(seed), stream))}
}

// intn returns a uniform int in [0, n).
func (g *rng) intn(n int) int { return g.r.IntN(n) }

// between returns a uniform int in [lo, hi].
func (g *rng) between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

// chance reports true with probability p.
func (g *rng) chance(p float64) bool { return g.r.Float64() < p }

// dur returns a uniform duration in [lo, hi), at millisecond resolution: PostgreSQL keeps
// microseconds, and whole milliseconds make the values easy to read in psql.
func (g *rng) dur(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	ms := int64((hi - lo) / time.Millisecond)
	if ms <= 0 {
		return lo
	}
	return lo + time.Duration(g.r.Int64N(ms))*time.Millisecond
}

// uuid7 returns a version 7 UUID stamped with t (what a row minted at t would get) and filled
// with the generator's bits, so ids repeat with the seed. Time-ordered ids keep PostgreSQL's
// primary key and foreign key indexes growing at their right edge while the demo is written in
// time order, as a real ledger's do over the years: random ids made a million-row demo spend
// most of its time paging index blocks.
func (g *rng) uuid7(t time.Time) [16]byte {
	var u [16]byte
	ms := uint64(t.UnixMilli())
	a, b := g.r.Uint64(), g.r.Uint64()
	for i := range 6 {
		u[i] = byte(ms >> (40 - 8*i))
	}
	u[6] = 0x70 | byte(a>>60)&0x0f
	u[7] = byte(a >> 52)
	for i := range 8 {
		u[8+i] = byte(b >> (56 - 8*i))
	}
	u[8] = u[8]&0x3f | 0x80
	return u
}

// uuid returns a version 4 UUID made of the generator's bits, so ids repeat with the seed.
func (g *rng) uuid() [16]byte {
	var u [16]byte
	a, b := g.r.Uint64(), g.r.Uint64()
	for i := range 8 {
		u[i] = byte(a >> (56 - 8*i))
		u[8+i] = byte(b >> (56 - 8*i))
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u
}

// pick returns an index into weights, chosen with probability proportional to its weight.
func (g *rng) pick(weights []int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	n := g.r.IntN(total)
	for i, w := range weights {
		if n < w {
			return i
		}
		n -= w
	}
	return len(weights) - 1
}

const hexDigits = "0123456789abcdef"

// appendUUID appends u in its canonical 8-4-4-4-12 text form.
func appendUUID(b []byte, u [16]byte) []byte {
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hexDigits[c>>4], hexDigits[c&0xf])
	}
	return b
}

func uuidString(u [16]byte) string { return string(appendUUID(make([]byte, 0, 36), u)) }
