package remote

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/stackbench/stackbench/internal/agent"
)

// serveEnv makes the test binary a tiny HTTP server answering 200 on
// /health at 127.0.0.1:$PORT, for the processes an agent starts.
const serveEnv = "STACKBENCH_REMOTE_TEST_SERVE"

// The test binary is the binary copied to the hosts: run with "agent" it
// is the agent, as stackbench is.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "agent" {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGHUP)
		err := agent.Serve(ctx, os.Stdin, os.Stdout)
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, "agent:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(serveEnv) != "" {
		http.HandleFunc("/health", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })
		fmt.Fprintln(os.Stderr, http.ListenAndServe("127.0.0.1:"+os.Getenv("PORT"), nil))
		os.Exit(1)
	}
	os.Exit(m.Run())
}
