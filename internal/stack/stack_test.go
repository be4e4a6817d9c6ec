package stack

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/workload"
)

func testStack() plan.Stack {
	return plan.Stack{Name: "api", Dir: "/srv/api", Start: "./api", Health: "/health",
		Env: map[string]string{"NODE_ENV": "development", "GOGC": "200"}, EnvOrder: []string{"NODE_ENV", "GOGC"}}
}

// Every stack gets the harness's variables, then its own in file order, so
// its own win (exec keeps the last of a repeated key); DATABASE_URL only
// when there is a database.
func TestEnv(t *testing.T) {
	h := Harness{Workload: "saas-slice", JWTSecret: "k", DatabaseURL: "postgres://x"}
	want := []string{"PORT=8123", "JWT_SECRET=k", "NODE_ENV=production", "STACKBENCH_WORKLOAD=saas-slice",
		"DATABASE_URL=postgres://x", "NODE_ENV=development", "GOGC=200"}
	if got := Env(testStack(), 8123, h); !slices.Equal(got, want) {
		t.Errorf("Env = %q\nwant %q", got, want)
	}
	h.DatabaseURL = ""
	if got := Env(testStack(), 8123, h); slices.ContainsFunc(got, func(kv string) bool { return strings.HasPrefix(kv, "DATABASE_URL=") }) {
		t.Errorf("no database, yet Env = %q", got)
	}
}

// What a stack's process sees: its own NODE_ENV, not the harness's.
func TestEnvSeenByTheStack(t *testing.T) {
	log := filepath.Join(t.TempDir(), "env.log")
	env := Env(testStack(), 8123, Harness{Workload: "micro", JWTSecret: "k"})
	if err := Shell(context.Background(), t.TempDir(), `printf '%s %s %s' "$NODE_ENV" "$PORT" "$STACKBENCH_WORKLOAD"`, log, env); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(log); string(b) != "development 8123 micro" {
		t.Errorf("the stack saw %q, want its own NODE_ENV, the port and the workload", b)
	}
}

// The boot suite's stacks carry the same environment without a PORT: the
// boot engine gives each start its own.
func TestBootStacks(t *testing.T) {
	h := Harness{Workload: "micro", JWTSecret: "k"}
	got, err := BootStacks([]plan.Stack{testStack()}, h, "/logs", workload.Case{Name: "user", Method: "GET", Path: "/users/1"}, nil)
	if err != nil || len(got) != 1 {
		t.Fatalf("BootStacks gave %d stacks", len(got))
	}
	b := got[0]
	if want := Env(testStack(), 0, h)[1:]; !slices.Equal(b.Env, want) {
		t.Errorf("env %q, want %q", b.Env, want)
	}
	if b.Name != "api" || b.Dir != "/srv/api" || b.Command != "./api" || b.HealthPath != "/health" || b.LogPath != "/logs/api.log" {
		t.Errorf("boot stack %+v", b)
	}
}

func TestBootTimeouts(t *testing.T) {
	quick, slow := testStack(), testStack()
	quick.BootTimeout, slow.BootTimeout = 5*time.Second, 3*time.Minute
	if got := BootTimeoutOf(testStack()); got != BootTimeout {
		t.Errorf("no boot_timeout: %v, want the default %v", got, BootTimeout)
	}
	if got := BootTimeoutOf(quick); got != 5*time.Second {
		t.Errorf("boot_timeout 5s: %v", got)
	}
	if got := LongestBootTimeout([]plan.Stack{quick}); got != BootTimeout {
		t.Errorf("longest of a 5s stack: %v, want no less than the default %v", got, BootTimeout)
	}
	if got := LongestBootTimeout([]plan.Stack{quick, slow, testStack()}); got != 3*time.Minute {
		t.Errorf("longest: %v, want 3m", got)
	}
}

// A failed build quotes its own output, not an earlier build's, and says
// what to do; a stack without a build command builds nothing.
func TestBuild(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "api.build.log")
	s := testStack()
	s.Dir = dir
	if err := Build(context.Background(), s, log); err != nil {
		t.Fatalf("no build command: %v", err)
	}
	if _, err := os.Stat(log); err == nil {
		t.Error("no build command, yet a build log")
	}
	s.Build = "echo first build output; exit 3"
	if err := Build(context.Background(), s, log); err == nil || !strings.Contains(err.Error(), "first build output") {
		t.Fatalf("failed build: %v", err)
	}
	s.Build = "echo second build output >&2; exit 4"
	err := Build(context.Background(), s, log)
	if err == nil || !strings.Contains(err.Error(), "second build output") || strings.Contains(err.Error(), "first build output") ||
		!strings.Contains(err.Error(), "exit status 4") || !strings.Contains(err.Error(), "fix the build") {
		t.Errorf("second failed build: %v", err)
	}
	s.Build = "true"
	if err := Build(context.Background(), s, log); err != nil {
		t.Errorf("a build that succeeds: %v", err)
	}
}

// A container stack starts through the runtime: on the host's network,
// named per start by proc.Start, with the harness's variables passed by
// name and start: as the container's arguments.
func TestContainerCommand(t *testing.T) {
	s := testStack()
	s.Container = &plan.Container{Image: "my-api:1.0", Runtime: "sh"} // any program on PATH stands for the runtime
	s.Start = "-addr :8080"
	cmd, c, err := containerCommand(s, []string{"PORT=1", "JWT_SECRET=k", "GOMAXPROCS=2"})
	if err != nil {
		t.Fatal(err)
	}
	want := `exec sh run --rm --network host --name "$STACKBENCH_CONTAINER" --label dev.stackbench.run=` + strconv.Itoa(os.Getpid()) +
		` --env PORT --env JWT_SECRET --env GOMAXPROCS my-api:1.0 -addr :8080`
	if cmd != want || c.Runtime != "sh" || c.Name != "" {
		t.Errorf("containerCommand =\n  %s (%+v)\nwant\n  %s", cmd, c, want)
	}
	// tls: on: the run's certificate and key are mounted read-only at
	// the paths their variables name.
	cmd, _, err = containerCommand(s, []string{"PORT=1", "TLS_CERT_FILE=/r/logs/tls/server.pem", "TLS_KEY_FILE=/r/logs/tls/server-key.pem"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(cmd, ` --env TLS_CERT_FILE --env TLS_KEY_FILE --volume /r/logs/tls:/r/logs/tls:ro my-api:1.0 -addr :8080`) {
		t.Errorf("with tls: on: %s", cmd)
	}
	// A database on its own host: the CA its URL verifies against is
	// mounted read-only at its path.
	cmd, _, err = containerCommand(s, []string{"PORT=1", "DATABASE_URL=postgres://u:p@10.1.2.3:5432/db?sslmode=verify-full&sslrootcert=%2Ftmp%2Fpools%2Fdatabase-ca%2Fca.crt"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(cmd, ` --env DATABASE_URL --volume /tmp/pools/database-ca:/tmp/pools/database-ca:ro my-api:1.0 -addr :8080`) {
		t.Errorf("with the database's CA: %s", cmd)
	}
	s.Container.Runtime = "no-such-runtime"
	if _, _, err := containerCommand(s, nil); err == nil || !strings.Contains(err.Error(), "not on PATH; install it") {
		t.Errorf("missing runtime: %v", err)
	}
}

// A run across hosts asks first for a certificate valid at its server
// host's address too: every later ask of the run gets the same files, and
// a host the certificate was not made for is refused, not served.
func TestTLSFilesForAServerHost(t *testing.T) {
	dir := t.TempDir()
	ca, err := TLSFilesFor(dir, "10.9.8.7")
	if err != nil {
		t.Fatal(err)
	}
	again, err := TLSFiles(dir)
	if err != nil || again != ca {
		t.Fatalf("TLSFiles after TLSFilesFor = %+v, %v; want the same files %+v", again, err, ca)
	}
	b, err := os.ReadFile(ca.CertFile)
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := pem.Decode(b)
	cert, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"10.9.8.7", "127.0.0.1", "localhost"} {
		if err := cert.VerifyHostname(h); err != nil {
			t.Errorf("the certificate is not valid for %s: %v", h, err)
		}
	}
	if _, err := TLSFilesFor(dir, "10.9.8.8"); err == nil || !strings.Contains(err.Error(), "10.9.8.8") {
		t.Errorf("a certificate asked for a host it was not made for = %v", err)
	}
}
