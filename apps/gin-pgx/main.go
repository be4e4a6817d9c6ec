// Command gin-pgx is the SaaS-slice reference server on gin: nethttp-pgx
// with a gin engine in place of net/http's ServeMux, and nothing else
// changed (pgx v5 pool of 10, encoding/json, the same net/http server).
// gin runs in release mode, built with gin.New(): no Logger and no Recovery
// middleware, no debug route printing. STACKBENCH_WORKLOAD=micro serves the
// micro workload; SIGTERM stops it gracefully.
//
// Build: go build -o bin/server .
package main

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/stackbench/stackbench/apps/internal/saas"
)

func main() { saas.Main("gin-pgx", run) }

func run(ctx context.Context, cfg saas.Config) error {
	gin.SetMode(gin.ReleaseMode)
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

// write answers with the App's response; c.Data writes the body as is.
func write(c *gin.Context, resp saas.Response) {
	c.Data(resp.Status, saas.ContentType, resp.Body)
}

// router routes the SaaS-slice workload with gin.
func router(a *saas.App) http.Handler {
	r := gin.New()
	r.GET("/health", func(c *gin.Context) { write(c, a.Health()) })
	r.POST("/echo", func(c *gin.Context) {
		if body, ok := saas.ReadBody(c.Writer, c.Request); ok {
			write(c, a.Echo(body))
		}
	})
	r.GET("/me", func(c *gin.Context) {
		write(c, a.Me(c.Request.Context(), c.GetHeader("Authorization")))
	})
	r.GET("/users/:id", func(c *gin.Context) {
		write(c, a.User(c.Request.Context(), c.Param("id")))
	})
	r.GET("/users", func(c *gin.Context) {
		write(c, a.ListUsers(c.Request.Context(), c.Query("page"), c.Query("limit")))
	})
	r.POST("/orders", func(c *gin.Context) {
		if body, ok := saas.ReadBody(c.Writer, c.Request); ok {
			write(c, a.CreateOrder(c.Request.Context(), body))
		}
	})
	r.GET("/cpu", func(c *gin.Context) { write(c, a.CPU(c.Query("n"))) })
	return r
}

// microRouter routes the micro workload (and /health) with gin.
func microRouter(a *saas.App) http.Handler {
	r := gin.New()
	r.GET("/health", func(c *gin.Context) { write(c, a.Health()) })
	r.GET("/users/:id", func(c *gin.Context) { write(c, a.MicroUser(c.Param("id"))) })
	r.POST("/users", func(c *gin.Context) {
		if body, ok := saas.ReadBody(c.Writer, c.Request); ok {
			write(c, a.MicroCreate(body))
		}
	})
	return r
}
