package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/plan"
)

func TestInitWritesAValidStarter(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runMain(t, dir, nil, "init")
	if code != 0 || !strings.Contains(out, "wrote "+filepath.Join(dir, "stackbench.yaml")) {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	data, err := os.ReadFile(filepath.Join(dir, "stackbench.yaml"))
	if err != nil || string(data) != plan.StarterYAML {
		t.Fatalf("written file differs from the starter (%v)", err)
	}
	// The file it wrote passes plan as it is.
	code, out, errOut = runMain(t, dir, nil, "plan")
	if code != 0 || !strings.Contains(out, "1. my-api") {
		t.Errorf("plan of the starter: exit %d\n%s%s", code, out, errOut)
	}
}

func TestInitRefusesToOverwrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "stackbench.yaml")
	if err := os.WriteFile(path, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runMain(t, dir, nil, "init")
	if code != 2 || !strings.Contains(errOut, "already exists") || !strings.Contains(errOut, "--force") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if data, _ := os.ReadFile(path); string(data) != "mine\n" {
		t.Fatalf("the file was changed: %q", data)
	}
	code, _, errOut = runMain(t, dir, nil, "init", "--force")
	if code != 0 {
		t.Fatalf("--force: exit %d: %s", code, errOut)
	}
	if data, _ := os.ReadFile(path); string(data) != plan.StarterYAML {
		t.Error("--force did not write the starter")
	}
}
