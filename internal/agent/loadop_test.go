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
	if _, _, err := loadCommand(&LoadSpec{Args: []string{"load", "--cacert=/x", "http://h"}, CACert: []byte("pem")}); err == nil {
		t.Error("a CA and --cacert together were accepted")
	}
	if _, _, err := loadCommand(&LoadSpec{Args: []string{"run"}}); err == nil {
		t.Error("a window that is not load was accepted")
	}
}

// The files of a window on another wire — the CA, the gRPC descriptors
// and the messages — are written apart, private, each named by its flag
// before the target, and removed after the window.
func TestLoadCommandWritesTheWiresFiles(t *testing.T) {
	spec := &LoadSpec{Args: []string{"load", "--grpc", "saas.Users/GetUser", "https://10.0.0.2:8443/"},
		CACert: []byte("-----BEGIN CERTIFICATE-----\n"), Descriptors: []byte{0x0a, 0x01, 0x78}, Messages: []byte(`{"id":1}` + "\n")}
	args, done, err := loadCommand(spec)
	if err != nil {
		t.Fatal(err)
	}
	if args[len(args)-1] != "https://10.0.0.2:8443/" {
		t.Fatalf("args %q; want the target last", args)
	}
	want := map[string][]byte{"--cacert": spec.CACert, "--proto": spec.Descriptors, "--messages": spec.Messages}
	var files []string
	for i, a := range args[:len(args)-1] {
		data, ok := want[a]
		if !ok {
			continue
		}
		delete(want, a)
		path := args[i+1]
		files = append(files, path)
		got, err := os.ReadFile(path)
		fi, serr := os.Stat(path)
		if err != nil || serr != nil || string(got) != string(data) || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s %s: %q (%v), mode %v; want %q, mode 0600", a, path, got, err, fi.Mode(), data)
		}
		if a == "--proto" && !strings.HasSuffix(path, ".pb") {
			t.Errorf("--proto %s: want a .pb name, which load reads as a descriptor set", path)
		}
	}
	if len(want) != 0 {
		t.Fatalf("args %q lack %v", args, want)
	}
	done()
	for _, f := range files {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s is still there after the window: %v", f, err)
		}
	}
}

// A flow window's flow is written to a private file of the agent's and
// named by --flow before the target, the generator's own --first-user
// kept; a window that names --flow itself as well is refused.
func TestLoadCommandWritesTheFlow(t *testing.T) {
	flow := []byte(`{"name":"session","steps":[{"name":"login","method":"POST","path":"/login","capture":{"auth":"header.Authorization"}}]}`)
	spec := &LoadSpec{Args: []string{"load", "-c", "3", "--first-user", "5", "http://10.0.0.2:8080"}, Flow: flow}
	if spec.Size() != len(flow) {
		t.Errorf("Size %d; want the flow's %d bytes", spec.Size(), len(flow))
	}
	args, done, err := loadCommand(spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(args) != 8 || args[5] != "--flow" || args[7] != "http://10.0.0.2:8080" || args[4] != "5" {
		t.Fatalf("args %q; want --first-user 5 kept and --flow FILE before the target", args)
	}
	got, err := os.ReadFile(args[6])
	fi, serr := os.Stat(args[6])
	if err != nil || serr != nil || string(got) != string(flow) || fi.Mode().Perm() != 0o600 || !strings.HasSuffix(args[6], ".json") {
		t.Fatalf("the flow file %s holds %q (%v), mode %v; want the flow sent, mode 0600", args[6], got, err, fi.Mode())
	}
	done()
	if _, err := os.Stat(args[6]); !os.IsNotExist(err) {
		t.Errorf("the flow file %s is still there after the window: %v", args[6], err)
	}
	if _, _, err := loadCommand(&LoadSpec{Args: []string{"load", "--flow", "/x.json", "http://h"}, Flow: flow}); err == nil {
		t.Error("a flow and --flow together were accepted")
	}
}
