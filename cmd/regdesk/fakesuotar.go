package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"regdesk/partner/suotar/suotarfake"
)

// fakeSuotarCommand runs the fake Suotar for development: `regdesk fakesuotar [flags]`. It serves
// until ctx is done and then shuts down gracefully.
func fakeSuotarCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fakesuotar", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8081", "address to listen on")
	// The environment default is applied after parsing, so -help never prints the token.
	token := fs.String("token", "", "bearer token clients must send (default $SUOTAR_TOKEN)")
	worldFile := fs.String("world", "", "world file to serve (default: an empty world)")
	timeScale := fs.Float64("time-scale", 1, "fake seconds per real second (3600: an hour passes in a second)")
	prefix := fs.String("prefix", suotarfake.DefaultPrefix, "path prefix of the batch endpoints")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return fmt.Errorf("fakesuotar: %w", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("fakesuotar: unexpected arguments %q", fs.Args())
	}
	if *token == "" {
		*token = getenv("SUOTAR_TOKEN")
	}
	if *token == "" {
		return errors.New("fakesuotar: no token: pass --token or set SUOTAR_TOKEN")
	}
	if *timeScale < 0 {
		return errors.New("fakesuotar: --time-scale must not be negative")
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	opts := []suotarfake.Option{
		suotarfake.WithPrefix(*prefix),
		suotarfake.WithClock(suotarfake.NewClock(time.Now(), *timeScale)),
		suotarfake.WithLogger(logger),
	}
	if *worldFile != "" {
		world, err := suotarfake.LoadWorld(*worldFile)
		if err != nil {
			return fmt.Errorf("fakesuotar: %w", err)
		}
		opts = append(opts, suotarfake.WithWorld(world))
	}
	fake, err := suotarfake.New(*token, opts...)
	if err != nil {
		return fmt.Errorf("fakesuotar: %w", err)
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("fakesuotar: listen: %w", err)
	}
	srv := &http.Server{Handler: fake, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: 60 * time.Second}
	fmt.Fprintf(stdout, "fake Suotar serving http://%s%s (control API at http://%s/control/)\n", ln.Addr(), *prefix, ln.Addr())

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("fakesuotar: serve: %w", err)
	case <-ctx.Done():
	}
	// Hanging calls (a fault) would hold Shutdown for its whole timeout; end them first.
	fake.Close()
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("fakesuotar: shutdown: %w", err)
	}
	return nil
}
