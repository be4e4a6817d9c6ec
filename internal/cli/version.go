package cli

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// Version overrides the version read from the build information when set
// at build time (-ldflags "-X github.com/stackbench/stackbench/internal/cli.Version=v1.2.3").
var Version = ""

// BuildInfo is what the binary knows of its own build: the module version
// (a tag with go install MODULE@VERSION, "(devel)" when built in a
// checkout) and, when built in a git checkout, the commit, its time and
// whether the tree had uncommitted changes.
type BuildInfo struct {
	Module    string
	Version   string
	Revision  string
	Time      string
	Modified  bool
	GoVersion string
}

// readBuildInfo reads the running binary's build information.
func readBuildInfo() BuildInfo {
	var b BuildInfo
	if info, ok := debug.ReadBuildInfo(); ok {
		b.Module, b.Version, b.GoVersion = info.Main.Path, info.Main.Version, info.GoVersion
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Revision = s.Value
			case "vcs.time":
				b.Time = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	if Version != "" {
		b.Version = Version
	}
	if b.Version == "" {
		b.Version = "(devel)"
	}
	return b
}

// String is the version on one line, as journals and reports record it:
// "v1.2.0" from go install at a tag; from a checkout, the pseudo-version go
// build stamps, which names the commit ("v0.0.0-20261201150045-82363f3a3196
// 2026-12-01T15:00:45Z", "+dirty" when the tree had changes), or, from an
// older toolchain, "(devel) 82363f3a3196+modified 2026-12-01T15:00:45Z".
func (b BuildInfo) String() string {
	parts := []string{b.Version}
	if b.Revision != "" {
		rev := b.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if strings.Contains(b.Version, rev) {
			rev = ""
		} else if b.Modified {
			rev += "+modified"
		}
		if rev != "" {
			parts = append(parts, rev)
		}
	}
	if b.Time != "" {
		parts = append(parts, b.Time)
	}
	return strings.Join(parts, " ")
}

// toolVersion is the version recorded in a run's journal.
func toolVersion() string { return readBuildInfo().String() }

// printVersion writes `stackbench version`.
func printVersion(w io.Writer) {
	b := readBuildInfo()
	fmt.Fprintf(w, "stackbench %s\n", b)
	if b.Module != "" {
		fmt.Fprintf(w, "  module    %s %s\n", b.Module, b.Version)
	}
	if b.Revision != "" {
		fmt.Fprintf(w, "  revision  %s\n", b.Revision)
		fmt.Fprintf(w, "  time      %s\n", b.Time)
		fmt.Fprintf(w, "  modified  %t\n", b.Modified)
	} else {
		fmt.Fprintln(w, "  revision  unknown (built outside a git checkout, or with go run or -buildvcs=false)")
	}
	if b.GoVersion != "" {
		fmt.Fprintf(w, "  go        %s\n", b.GoVersion)
	}
}
