package host

import (
	"context"
	"runtime"
	"strings"
	"testing"
)

func TestCapture(t *testing.T) {
	e := Capture()
	if e.Kernel == "" || e.CPUCount < 1 || e.CPUsAvailable <= 0 || e.CPUsAvailable > float64(e.CPUCount) ||
		e.MemoryBytes <= 0 || e.OpenFileLimit == 0 || e.GoVersion != runtime.Version() || e.Somaxconn <= 0 {
		t.Errorf("Capture = %+v", e)
	}
}

func TestCaptureStackVersion(t *testing.T) {
	v := CaptureStackVersion(context.Background(), "node", t.TempDir(), `echo "v22.1.0"; echo "warning: experimental" >&2; echo "$EXTRA"`, []string{"EXTRA=from env"})
	if v.Stdout != "v22.1.0\nfrom env" || v.Stderr != "warning: experimental" || v.Error != "" {
		t.Errorf("version = %+v", v)
	}
	v = CaptureStackVersion(context.Background(), "broken", t.TempDir(), `echo partial; echo "no such runtime" >&2; exit 127`, nil)
	if v.Stdout != "partial" || v.Stderr != "no such runtime" || !strings.Contains(v.Error, "exit status 127") {
		t.Errorf("failed version = %+v", v)
	}
}

func TestWarnings(t *testing.T) {
	e := Environment{Somaxconn: 128, OpenFileLimit: 1024, Governor: "performance"}
	if w := e.Warnings(100); len(w) != 0 {
		t.Errorf("Warnings(100) = %q", w)
	}
	// The backlog holds somaxconn connections: concurrency up to it is fine.
	if w := e.Warnings(128); len(w) != 0 {
		t.Errorf("Warnings(128) with somaxconn 128 = %q", w)
	}
	if w := e.Warnings(129); len(w) != 1 || !strings.Contains(w[0], "concurrency 129 exceeds net.core.somaxconn (128)") {
		t.Errorf("Warnings(129) with somaxconn 128 = %q", w)
	}
	w := e.Warnings(1000)
	if len(w) != 2 || !strings.Contains(w[0], "somaxconn") || !strings.Contains(w[1], "open-file limit") {
		t.Errorf("Warnings(1000) = %q", w)
	}
	e.Governor = "powersave"
	if w := e.Warnings(1); len(w) != 1 || !strings.Contains(w[0], "powersave") {
		t.Errorf("powersave: %q", w)
	}
}
