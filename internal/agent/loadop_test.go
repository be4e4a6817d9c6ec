package agent

import (
	"os"
	"strings"
	"testing"
)

// A load window with a request pool gets the pool as a file of the
// agent's own, named by --requests before the target, and the file goes
// when the window is done.
func TestLoadCommandWritesTheRequestPool(t *testing.T) {
	pool := []byte(`{"method":"GET","path":"/a"}` + "\n" + `{"method":"GET","path":"/b"}` + "\n")
	args, done, err := loadCommand(&LoadSpec{Args: []string{"load", "-c", "2", "http://10.0.0.2:8080"}, Requests: pool})
	if err != nil {
		t.Fatal(err)
	}
	if len(args) != 6 || args[3] != "--requests" || args[5] != "http://10.0.0.2:8080" {
		t.Fatalf("args %q; want --requests FILE before the target", args)
	}
	got, err := os.ReadFile(args[4])
	if err != nil || string(got) != string(pool) {
		t.Fatalf("the pool file holds %q (%v); want the pool sent", got, err)
	}
	done()
	if _, err := os.Stat(args[4]); !os.IsNotExist(err) {
		t.Errorf("the pool file %s is still there after the window: %v", args[4], err)
	}

	args, done, err = loadCommand(&LoadSpec{Args: []string{"load", "http://h"}})
	if err != nil || strings.Join(args, " ") != "load http://h" {
		t.Fatalf("without a pool: %q, %v; want the arguments as given", args, err)
	}
	done()
	if _, _, err := loadCommand(&LoadSpec{Args: []string{"load", "--requests", "/x", "http://h"}, Requests: pool}); err == nil {
		t.Error("a pool and --requests together were accepted")
	}
	if _, _, err := loadCommand(&LoadSpec{Args: []string{"run"}}); err == nil {
		t.Error("a window that is not load was accepted")
	}
}
