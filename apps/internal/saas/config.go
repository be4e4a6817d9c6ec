package saas

import (
	"fmt"
	"net"
)

// DefaultJWTSecret is the secret used when JWT_SECRET is not set; it is
// workload.DefaultJWTSecret (a test keeps them equal), repeated here so that
// servers do not link the harness's workload package.
const DefaultJWTSecret = "bench-secret-do-not-use-in-prod"

// Workload names a reference server answers to in STACKBENCH_WORKLOAD.
const (
	WorkloadSaaSSlice = "saas-slice"
	WorkloadMicro     = "micro"
)

// defaultPort is the port used when PORT is not set (the published servers'
// port); the harness always sets PORT.
const defaultPort = "3000"

// defaultHost is the address listened on when HOST is not set: only this
// machine reaches the server. A server on another host than the load
// generator gets HOST (0.0.0.0, or one of the host's addresses).
const defaultHost = "127.0.0.1"

// Config is what a reference server reads from its environment.
type Config struct {
	Addr        string // $HOST:$PORT, HOST 127.0.0.1 when unset
	DatabaseURL string // DATABASE_URL; needed for saas-slice only
	JWTSecret   string // JWT_SECRET, or DefaultJWTSecret
	Workload    string // WorkloadSaaSSlice (default) or WorkloadMicro
}

// WorkloadEnv, when set, names the workload served instead of
// STACKBENCH_WORKLOAD: a comparison file with a custom workload over the
// SaaS slice's routes (its own name in STACKBENCH_WORKLOAD) sets
// SAAS_WORKLOAD: saas-slice in a stack's env (examples/wire).
const WorkloadEnv = "SAAS_WORKLOAD"

// ConfigFromEnv reads HOST, PORT, DATABASE_URL, JWT_SECRET and
// STACKBENCH_WORKLOAD (SAAS_WORKLOAD when set).
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := Config{
		DatabaseURL: getenv("DATABASE_URL"),
		JWTSecret:   getenv("JWT_SECRET"),
		Workload:    getenv("STACKBENCH_WORKLOAD"),
	}
	if w := getenv(WorkloadEnv); w != "" {
		c.Workload = w
	}
	port := getenv("PORT")
	if port == "" {
		port = defaultPort
	}
	host := getenv("HOST")
	if host == "" {
		host = defaultHost
	}
	c.Addr = net.JoinHostPort(host, port)
	if c.JWTSecret == "" {
		c.JWTSecret = DefaultJWTSecret
	}
	switch c.Workload {
	case "":
		c.Workload = WorkloadSaaSSlice
	case WorkloadSaaSSlice, WorkloadMicro:
	default:
		return Config{}, fmt.Errorf("STACKBENCH_WORKLOAD=%q: this server knows %s and %s (a custom workload over its routes: set %s=%s in the stack's env)", c.Workload, WorkloadSaaSSlice, WorkloadMicro, WorkloadEnv, WorkloadSaaSSlice)
	}
	if c.Workload == WorkloadSaaSSlice && c.DatabaseURL == "" {
		return Config{}, fmt.Errorf("DATABASE_URL is not set: point it at a seeded database (stackbench db up prints one)")
	}
	return c, nil
}
