package run

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/plan"
)

// plantedKey is an API key the comparison file reads with ${env:…}; the
// ownapp's login answers with the token "tok-bench", captured and sent as
// Authorization "Token tok-bench".
const plantedKey = "sk-live-PLANTED-4242"

// secretsFile is ownAppFile with the planted key sent by the setup and
// the article case, and the article's createdAt compared (unless
// ignore), which fails the parity gate with a finding that quotes the
// request.
func secretsFile(ignore bool) string {
	src := bins.OwnAppFile("  - name: two\n    dir: .\n    start: " + ownAppBin + "\n")
	src = strings.Replace(src, "      path: /login\n", "      path: /login\n      headers: {X-Api-Key: \"${env:BENCH_API_KEY}\"}\n      body: '{\"key\":\"${env:BENCH_API_KEY}\"}'\n", 1)
	src = strings.Replace(src, "      path: /articles/${slugs}\n", "      path: /articles/${slugs}\n      headers: {Authorization: \"${auth}\", X-Api-Key: \"${env:BENCH_API_KEY}\"}\n", 1)
	if !ignore {
		src = strings.Replace(src, "      ignore: [article.createdAt]\n", "", 1)
	}
	return strings.Replace(src, "  rounds: 2\n", "  rounds: 1\n", 1)
}

// runWithKey runs the file with BENCH_API_KEY set, returning the log.
func runWithKey(t *testing.T, src, dir string) (string, error) {
	t.Helper()
	f, err := plan.LoadEnv(writeFile(t, src), func(k string) string {
		if k == "BENCH_API_KEY" {
			return plantedKey
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Resolve(plan.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	_, err = Run(context.Background(), Options{File: f, Plan: p, Dir: dir, Stackbench: stackbenchBin, Log: &log, ToolVersion: "test"})
	return log.String(), err
}

// checkPrivate fails the test if a file of dir, or the log, holds a
// planted secret, or if dir or anything in it can be read by others.
func checkPrivate(t *testing.T, dir, log string) {
	t.Helper()
	secrets := []string{plantedKey, "tok-bench"}
	for _, s := range secrets {
		if strings.Contains(log, s) {
			t.Errorf("the run's log shows %q", s)
		}
	}
	files := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if perm := info.Mode().Perm(); perm&0o077 != 0 {
			t.Errorf("%s: mode %v, want nothing for group and others", path, perm)
		}
		if d.IsDir() {
			if d.Name() == "requests" {
				t.Errorf("%s: request pools in the results directory", path)
			}
			return nil
		}
		files++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds the secret %q", path, s)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 3 {
		t.Fatalf("only %d files in %s", files, dir)
	}
}

// TestNoSecretInAnyFileOfARun plants an API key (${env:…}) and a captured
// token and greps every file a run writes, a passing run and one whose
// parity gate fails quoting the request, for both: neither may be there,
// and the results directory is the user's alone.
func TestNoSecretInAnyFileOfARun(t *testing.T) {
	t.Parallel() // see "Parallel tests" in main_test.go: it reads files, never times
	dir := filepath.Join(t.TempDir(), "results", "ok")
	log, err := runWithKey(t, secretsFile(true), dir)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, log)
	}
	checkPrivate(t, dir, log)

	dir = filepath.Join(t.TempDir(), "results", "parity")
	log, err = runWithKey(t, secretsFile(false), dir)
	if !errors.Is(err, ErrParity) {
		t.Fatalf("run with createdAt compared: %v, want the parity gate to fail\n%s", err, log)
	}
	b, _ := os.ReadFile(filepath.Join(dir, ParityFile))
	if !strings.Contains(string(b), "[Authorization: [redacted]]") || !strings.Contains(string(b), "[X-Api-Key: [redacted]]") {
		t.Errorf("the parity report does not show the redacted headers:\n%s", b)
	}
	checkPrivate(t, dir, log)
}
