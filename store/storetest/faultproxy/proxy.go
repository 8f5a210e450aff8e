// Package faultproxy is a TCP proxy for tests that makes a real partner misbehave the way a
// failing network or a failing server does: it passes bytes through, hangs (as a SIGSTOPped
// PostgreSQL does: connections are accepted and nothing comes back), goes down (every connection
// is reset, new ones too) or adds latency. It sits between regdesk and PostgreSQL or Suotar, so a
// fault test exercises the real drivers, pools and timeouts instead of a mock.
package faultproxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// Mode is what the proxy does with bytes.
type Mode int

// The modes.
const (
	// Pass forwards bytes both ways.
	Pass Mode = iota
	// Hang accepts connections and forwards nothing, on open connections too, until the mode
	// changes: the partner looks alive to the kernel and dead to the program.
	Hang
	// Down resets every open connection and every new one.
	Down
)

// Proxy forwards connections from a local TCP address to a target.
type Proxy struct {
	ln      net.Listener
	network string
	target  string

	mu      sync.Mutex
	mode    Mode
	latency time.Duration
	changed chan struct{} // closed and replaced on every change of mode
	conns   map[net.Conn]struct{}
	closed  bool
	wg      sync.WaitGroup
}

// New starts a proxy on 127.0.0.1 to target, written "unix:/path/to/socket" or "tcp:host:port",
// and stops it when the test ends.
func New(tb testing.TB, target string) *Proxy {
	tb.Helper()
	network, addr, ok := strings.Cut(target, ":")
	if !ok || (network != "unix" && network != "tcp") {
		tb.Fatalf("faultproxy: target %q is not unix:PATH or tcp:HOST:PORT", target)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("faultproxy: listen: %v", err)
	}
	p := &Proxy{ln: ln, network: network, target: addr, changed: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.serve()
	tb.Cleanup(p.Close)
	return p
}

// Addr is the proxy's address, host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Host and Port are Addr's two halves, for connection strings.
func (p *Proxy) Host() string { h, _, _ := net.SplitHostPort(p.Addr()); return h }

// Port is the proxy's port.
func (p *Proxy) Port() string { _, port, _ := net.SplitHostPort(p.Addr()); return port }

// Set switches the mode. Going Down resets every open connection at once.
func (p *Proxy) Set(m Mode) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode = m
	close(p.changed)
	p.changed = make(chan struct{})
	if m == Down {
		for c := range p.conns {
			reset(c)
		}
	}
}

// SetLatency delays every chunk forwarded, both ways, by d.
func (p *Proxy) SetLatency(d time.Duration) {
	p.mu.Lock()
	p.latency = d
	p.mu.Unlock()
}

// Close stops the proxy and every connection through it.
func (p *Proxy) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	close(p.changed)
	p.changed = make(chan struct{})
	for c := range p.conns {
		reset(c)
	}
	p.mu.Unlock()
	p.ln.Close()
	p.wg.Wait()
}

func (p *Proxy) state() (Mode, time.Duration, <-chan struct{}, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mode, p.latency, p.changed, p.closed
}

func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

func (p *Proxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if mode, _, _, _ := p.state(); mode == Down {
			reset(c)
			continue
		}
		if !p.track(c) {
			c.Close()
			return
		}
		p.wg.Add(1)
		go p.handle(c)
	}
}

func (p *Proxy) handle(client net.Conn) {
	defer p.wg.Done()
	defer p.untrack(client)
	// A hung partner still lets the kernel accept: wait here, holding the connection open, until
	// the proxy is told otherwise.
	if !p.await(client) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	server, err := (&net.Dialer{}).DialContext(ctx, p.network, p.target)
	cancel()
	if err != nil {
		reset(client)
		return
	}
	if !p.track(server) {
		server.Close()
		return
	}
	defer p.untrack(server)
	done := make(chan struct{}, 2)
	go func() { p.pipe(server, client); done <- struct{}{} }()
	go func() { p.pipe(client, server); done <- struct{}{} }()
	<-done
	client.Close()
	server.Close()
	<-done
}

// await blocks while the proxy hangs; it reports false when the connection must end.
func (p *Proxy) await(c net.Conn) bool {
	for {
		mode, _, changed, closed := p.state()
		switch {
		case closed:
			return false
		case mode == Down:
			reset(c)
			return false
		case mode == Pass:
			return true
		}
		<-changed
	}
}

// pipe copies src to dst a chunk at a time, holding each chunk while the proxy hangs.
func (p *Proxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32*1024)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.await(dst) {
				return
			}
			if _, latency, _, _ := p.state(); latency > 0 {
				time.Sleep(latency)
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return
			}
			if tc, ok := dst.(interface{ CloseWrite() error }); ok {
				_ = tc.CloseWrite()
			}
			return
		}
	}
}

// reset closes c so the peer sees a reset rather than an orderly end, as when a server process is
// killed.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	c.Close()
}

// String describes the proxy for test logs.
func (p *Proxy) String() string {
	return fmt.Sprintf("faultproxy %s → %s:%s", p.Addr(), p.network, p.target)
}
