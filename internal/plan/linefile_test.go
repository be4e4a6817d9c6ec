package plan

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ${line:FILE} naming a FIFO is refused at once: plan must not wait for a
// writer that never comes (nothing but a writer ends an open of a FIFO).
func TestLineFileFIFODoesNotHang(t *testing.T) {
	path := writeConfig(t, `workload:
  name: fifo
  cases:
    - name: a
      path: /a/${line:ids.fifo}
`+validStacks)
	fifo := filepath.Join(filepath.Dir(path), "ids.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := LoadEnv(path, noEnv)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "is not a regular file") {
			t.Errorf("plan: %v; want the FIFO refused as not a regular file", err)
		}
	case <-time.After(5 * time.Second):
		// Release the plan (a writer ends its open), then fail.
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		<-done
		t.Fatal("plan waited on the FIFO for 5 s")
	}
}
