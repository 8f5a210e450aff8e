package faultproxy_test

import (
	"bufio"
	"net"
	"testing"
	"time"

	"regdesk/store/storetest/faultproxy"
)

// echo starts a TCP server that writes back every line it reads.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					if _, err := c.Write([]byte(line)); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// roundTrip writes a line through c and reads the answer within d.
func roundTrip(c net.Conn, d time.Duration) (string, error) {
	_ = c.SetDeadline(time.Now().Add(d))
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return "", err
	}
	return bufio.NewReader(c).ReadString('\n')
}

func TestProxyPassesHangsAndGoesDown(t *testing.T) {
	t.Parallel()
	p := faultproxy.New(t, "tcp:"+echo(t))

	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got, err := roundTrip(c, 2*time.Second); err != nil || got != "ping\n" {
		t.Fatalf("passing: %q, %v", got, err)
	}

	p.Set(faultproxy.Hang)
	if got, err := roundTrip(c, 200*time.Millisecond); err == nil {
		t.Fatalf("a hung proxy answered %q", got)
	}
	fresh, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatalf("a hung proxy refused a connection: %v", err)
	}
	defer fresh.Close()
	if got, err := roundTrip(fresh, 200*time.Millisecond); err == nil {
		t.Fatalf("a new connection through a hung proxy answered %q", got)
	}

	p.Set(faultproxy.Pass)
	// The held line goes through once the proxy passes again.
	if got, err := roundTrip(fresh, 2*time.Second); err != nil || got != "ping\n" {
		t.Fatalf("after resuming: %q, %v", got, err)
	}

	p.Set(faultproxy.Down)
	if _, err := roundTrip(fresh, 2*time.Second); err == nil {
		t.Fatalf("a connection survived the proxy going down")
	}
	down, err := net.Dial("tcp", p.Addr())
	if err == nil {
		if got, err := roundTrip(down, 2*time.Second); err == nil {
			t.Fatalf("a new connection through a down proxy answered %q", got)
		}
		down.Close()
	}

	p.Set(faultproxy.Pass)
	up, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	p.SetLatency(150 * time.Millisecond)
	start := time.Now()
	if got, err := roundTrip(up, 2*time.Second); err != nil || got != "ping\n" {
		t.Fatalf("with latency: %q, %v", got, err)
	}
	if took := time.Since(start); took < 300*time.Millisecond {
		t.Errorf("a round trip with 150 ms each way took %v", took)
	}
}
