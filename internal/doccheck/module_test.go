package doccheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// serverModules are the web frameworks, RPC libraries and drivers only the
// reference servers use: they belong in apps/go.mod, never in the
// harness's.
var serverModules = []string{
	"github.com/gin-gonic/gin",
	"github.com/labstack/echo",
	"github.com/gofiber/fiber",
	"github.com/go-chi/chi",
	"connectrpc.com/connect",
	"github.com/golang-jwt/jwt",
	"github.com/goccy/go-json",
	"github.com/lib/pq",
	"github.com/valyala/fasthttp",
}

// TestHarnessRequiresNoServerFramework: the root go.mod, the harness's,
// requires none of the reference servers' libraries, even indirectly
// (architecture.md, "Two modules"); a harness package that imports one
// brings it back through go mod tidy, and fails here.
func TestHarnessRequiresNoServerFramework(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(fields) == 0 {
			continue
		}
		for _, m := range serverModules {
			if fields[0] == m || strings.HasPrefix(fields[0], m+"/") {
				t.Errorf("go.mod requires %s, a library of the reference servers: the harness must not import it (move the code that does under apps/, then go mod tidy)", fields[0])
			}
		}
	}
}
