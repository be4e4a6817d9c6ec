// Command fiber-pgx is the SaaS-slice reference server on gofiber/fiber v2,
// which runs on fasthttp instead of net/http: the router and the HTTP server
// change together in this step, and nothing else (pgx v5 pool of 10,
// encoding/json). No middleware, no startup message, no prefork.
// STACKBENCH_WORKLOAD=micro serves the micro workload; SIGTERM stops it
// gracefully.
//
// fasthttp reuses its request buffers once a handler returns: strings from
// c.Params, c.Query, c.Get and the slice from c.Body are only valid inside
// the handler. saas.App only parses them, and its response bodies are its
// own (fresh or shared read-only), so nothing here needs copying.
//
// Build: go build -o bin/server .
package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/stackbench/stackbench/apps/internal/saas"
)

func main() { saas.Main("fiber-pgx", run) }

func run(ctx context.Context, cfg saas.Config) error {
	if cfg.Workload == saas.WorkloadMicro {
		return serve(ctx, cfg.Addr, microApp(saas.NewMicro(saas.StdJSON{})))
	}
	store, err := saas.OpenPgx(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer store.Close()
	return serve(ctx, cfg.Addr, app(saas.New(store, saas.StdJSON{}, cfg.JWTSecret)))
}

// shutdownTimeout bounds the graceful shutdown, as saas.ServeHTTP does.
const shutdownTimeout = 5 * time.Second

// serve runs f on addr until ctx is cancelled, then shuts it down
// gracefully; STACKBENCH_CPUPROFILE is honoured as saas.ServeHTTP does.
func serve(ctx context.Context, addr string, f *fiber.App) error {
	return saas.WithCPUProfile(os.Getenv(saas.CPUProfileEnv), func() error {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("listen on %s (is another server on that port?): %w", addr, err)
		}
		done := make(chan error, 1)
		go func() { done <- f.Listener(ln) }()
		select {
		case err := <-done:
			return fmt.Errorf("serve on %s: %w", addr, err)
		case <-ctx.Done():
		}
		if err := f.ShutdownWithTimeout(shutdownTimeout); err != nil {
			return fmt.Errorf("graceful shutdown: %w", err)
		}
		return nil
	})
}

func newFiber() *fiber.App {
	return fiber.New(fiber.Config{
		DisableStartupMessage: true,
		BodyLimit:             saas.MaxBodyBytes,
	})
}

// write answers with the App's response. Send keeps a reference to the
// body until the response is written; saas never modifies a body.
func write(c *fiber.Ctx, resp saas.Response) error {
	c.Set(fiber.HeaderContentType, saas.ContentType)
	return c.Status(resp.Status).Send(resp.Body)
}

// app routes the SaaS-slice workload with fiber.
func app(a *saas.App) *fiber.App {
	f := newFiber()
	f.Get("/health", func(c *fiber.Ctx) error { return write(c, a.Health()) })
	f.Post("/echo", func(c *fiber.Ctx) error { return write(c, a.Echo(c.Body())) })
	f.Get("/me", func(c *fiber.Ctx) error {
		return write(c, a.Me(c.UserContext(), c.Get(fiber.HeaderAuthorization)))
	})
	f.Get("/users/:id", func(c *fiber.Ctx) error {
		return write(c, a.User(c.UserContext(), c.Params("id")))
	})
	f.Get("/users", func(c *fiber.Ctx) error {
		return write(c, a.ListUsers(c.UserContext(), c.Query("page"), c.Query("limit")))
	})
	f.Post("/orders", func(c *fiber.Ctx) error {
		return write(c, a.CreateOrder(c.UserContext(), c.Body()))
	})
	f.Get("/cpu", func(c *fiber.Ctx) error { return write(c, a.CPU(c.Query("n"))) })
	return f
}

// microApp routes the micro workload (and /health) with fiber.
func microApp(a *saas.App) *fiber.App {
	f := newFiber()
	f.Get("/health", func(c *fiber.Ctx) error { return write(c, a.Health()) })
	f.Get("/users/:id", func(c *fiber.Ctx) error { return write(c, a.MicroUser(c.Params("id"))) })
	f.Post("/users", func(c *fiber.Ctx) error { return write(c, a.MicroCreate(c.Body())) })
	return f
}
