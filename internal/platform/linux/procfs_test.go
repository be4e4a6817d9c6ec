//go:build linux

package linux

import (
	"os"
	"testing"
)

func TestParseStat(t *testing.T) {
	line := "4242 (my (odd) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 7 3 20 0 4 0 123456 10000000 2560 18446744073709551615\n"
	st, err := parseStat([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	want := procStat{pid: 4242, ppid: 1, pgrp: 4242, state: 'S', ownTicks: 300, childTicks: 10, rssPages: 2560, startTicks: 123456, threads: 4}
	if st != want {
		t.Errorf("parseStat = %+v, want %+v", st, want)
	}
	for _, bad := range []string{"", "12 (x)", "12 (x) S 1 2", "x (y) S 1 1 1 0 -1 0 0 0 0 0 1 1 1 1 20 0 1 0 1 1 1"} {
		if _, err := parseStat([]byte(bad)); err == nil {
			t.Errorf("parseStat(%q) accepted a malformed line", bad)
		}
	}
}

func TestReadSelf(t *testing.T) {
	p, ok := (&Reader{}).Read(os.Getpid())
	if !ok || p.PID != os.Getpid() || p.PPID != os.Getppid() || p.PGID <= 0 || p.RSSBytes <= 0 || !p.Alive || p.Threads < 1 || p.StartTicks <= 0 {
		t.Errorf("Read(self) = %+v, %v", p, ok)
	}
}
