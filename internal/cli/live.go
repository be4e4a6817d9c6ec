package cli

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/live"
	"github.com/stackbench/stackbench/internal/report"
)

// liveFlag is --live, with or without an address: `--live` serves on
// 127.0.0.1 at a free port, `--live ADDR` (or --live=ADDR) on ADDR.
type liveFlag struct {
	on   bool
	addr string
}

func (f *liveFlag) String() string {
	if f == nil || !f.on {
		return ""
	}
	return f.addr
}

func (f *liveFlag) Set(s string) error {
	switch s {
	case "true":
		f.on, f.addr = true, ""
	case "false":
		f.on, f.addr = false, ""
	default:
		f.on, f.addr = true, s
	}
	return nil
}

// IsBoolFlag lets --live stand alone.
func (f *liveFlag) IsBoolFlag() bool { return true }

// liveFlags are --live and --allow-remote.
type liveFlags struct {
	live        liveFlag
	allowRemote *bool
}

func addLiveFlags(fs *flag.FlagSet, what string) *liveFlags {
	lf := &liveFlags{}
	fs.Var(&lf.live, "live", "serve a live page of "+what+" on 127.0.0.1 at a free port, or at --live HOST:PORT; the URL it prints carries the page's token")
	lf.allowRemote = fs.Bool("allow-remote", false, "let --live listen on an address other than loopback (anyone who reaches it with the token sees the run)")
	return lf
}

// joinLiveAddr turns `--live ADDR` into `--live=ADDR` when the argument
// after --live is an address (HOST:PORT), so the optional value reads
// either way; any other argument after --live is left alone.
func joinLiveAddr(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if (a == "--live" || a == "-live") && i+1 < len(args) && looksLikeAddr(args[i+1]) {
			out = append(out, "--live="+args[i+1])
			i++
			continue
		}
		out = append(out, a)
	}
	return out
}

func looksLikeAddr(s string) bool {
	host, port, err := net.SplitHostPort(s)
	if err != nil || port == "" || strings.ContainsAny(s, "/\\") {
		return false
	}
	return host == "" || host == "localhost" || net.ParseIP(host) != nil
}

// startLive serves the live page of dir and prints its URL on stderr.
func startLive(lf *liveFlags, dir string, inProcess bool, opt report.BuildOptions, env Env) (*live.Server, error) {
	if *lf.allowRemote && !lf.live.on {
		return nil, usagef("--allow-remote applies to --live; add --live HOST:PORT, or drop --allow-remote")
	}
	s, err := live.Start(live.Options{Dir: dir, Addr: lf.live.addr, AllowRemote: *lf.allowRemote, InProcess: inProcess, Report: opt, Errors: env.Stderr})
	if err != nil {
		return nil, usagef("%v", err)
	}
	fmt.Fprintf(env.Stderr, "live page: %s\n", s.URL())
	return s, nil
}

// followLive is `stackbench report --live DIR`: the page of a run in
// another process (or a finished one), served until the command is
// interrupted. It writes nothing to DIR.
func followLive(ctx context.Context, lf *liveFlags, dir string, opt report.BuildOptions, env Env) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return usagef("--live %s: no such results directory; name the directory stackbench run writes (it prints it first: results in …)", dir)
	}
	s, err := startLive(lf, dir, false, opt, env)
	if err != nil {
		return err
	}
	fmt.Fprintln(env.Stderr, "following", filepath.Join(dir, journal.FileName), "until Ctrl-C")
	<-ctx.Done()
	return s.Close()
}
