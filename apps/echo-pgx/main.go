// Command echo-pgx is the SaaS-slice reference server on labstack/echo v4:
// nethttp-pgx with an echo router in place of net/http's ServeMux, and
// nothing else changed (pgx v5 pool of 10, encoding/json, the same net/http
// server). No middleware (echo's logger and recover are opt-in), debug off,
// no banner. STACKBENCH_WORKLOAD=micro serves the micro workload; SIGTERM
// stops it gracefully.
//
// Build: go build -o bin/server .
package main

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/stackbench/stackbench/apps/internal/saas"
)

func main() { saas.Main("echo-pgx", run) }

func run(ctx context.Context, cfg saas.Config) error {
	if cfg.Workload == saas.WorkloadMicro {
		return saas.ServeHTTP(ctx, cfg.Addr, microRouter(saas.NewMicro(saas.StdJSON{})))
	}
	store, err := saas.OpenPgx(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer store.Close()
	return saas.ServeHTTP(ctx, cfg.Addr, router(saas.New(store, saas.StdJSON{}, cfg.JWTSecret)))
}

func newEcho() *echo.Echo {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	return e
}

// write answers with the App's response; c.Blob writes the body as is.
func write(c echo.Context, resp saas.Response) error {
	return c.Blob(resp.Status, saas.ContentType, resp.Body)
}

// withBody reads the request body and answers with reply's response.
func withBody(c echo.Context, reply func([]byte) saas.Response) error {
	body, ok := saas.ReadBody(c.Response(), c.Request())
	if !ok {
		return nil
	}
	return write(c, reply(body))
}

// router routes the SaaS-slice workload with echo.
func router(a *saas.App) http.Handler {
	e := newEcho()
	e.GET("/health", func(c echo.Context) error { return write(c, a.Health()) })
	e.POST("/echo", func(c echo.Context) error { return withBody(c, a.Echo) })
	e.GET("/me", func(c echo.Context) error {
		return write(c, a.Me(c.Request().Context(), c.Request().Header.Get("Authorization")))
	})
	e.GET("/users/:id", func(c echo.Context) error {
		return write(c, a.User(c.Request().Context(), c.Param("id")))
	})
	e.GET("/users", func(c echo.Context) error {
		return write(c, a.ListUsers(c.Request().Context(), c.QueryParam("page"), c.QueryParam("limit")))
	})
	e.POST("/orders", func(c echo.Context) error {
		return withBody(c, func(body []byte) saas.Response { return a.CreateOrder(c.Request().Context(), body) })
	})
	e.GET("/cpu", func(c echo.Context) error { return write(c, a.CPU(c.QueryParam("n"))) })
	return e
}

// microRouter routes the micro workload (and /health) with echo.
func microRouter(a *saas.App) http.Handler {
	e := newEcho()
	e.GET("/health", func(c echo.Context) error { return write(c, a.Health()) })
	e.GET("/users/:id", func(c echo.Context) error { return write(c, a.MicroUser(c.Param("id"))) })
	e.POST("/users", func(c echo.Context) error { return withBody(c, a.MicroCreate) })
	return e
}
