package suotarfake

import (
	"sync"
	"time"
)

// Clock is the fake's time. Fake time runs Scale times as fast as real time (3600 makes an hour
// pass in a second; 0 stops it), plus an offset that Advance moves forward, so hours of Sisu
// behaviour — importer lag, the course unit attainment a day later, the 24-hour pending window —
// fit in a test or a demo.
type Clock struct {
	mu         sync.Mutex
	realNow    func() time.Time
	anchorReal time.Time
	anchorFake time.Time
	scale      float64
	offset     time.Duration
}

// NewClock returns a clock that reads start now and then runs scale times as fast as real time.
// A negative scale counts as 0.
func NewClock(start time.Time, scale float64) *Clock {
	return newClock(start, scale, time.Now)
}

func newClock(start time.Time, scale float64, realNow func() time.Time) *Clock {
	return &Clock{realNow: realNow, anchorReal: realNow(), anchorFake: start, scale: max(scale, 0)}
}

// Now returns the fake time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	elapsed := c.realNow().Sub(c.anchorReal)
	return c.anchorFake.Add(time.Duration(float64(elapsed)*c.scale) + c.offset)
}

// Advance moves fake time forward by d (never back) and returns the new time.
func (c *Clock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	if d > 0 {
		c.offset += d
	}
	c.mu.Unlock()
	return c.Now()
}

// Scale returns how many fake seconds pass per real second.
func (c *Clock) Scale() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.scale
}
