package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/remote"
)

// remoteOptions are how the commands reach the file's hosts: known_hosts
// from --known-hosts (default ~/.ssh/known_hosts), keys from SSH_AUTH_SOCK
// and each host's identity:, and the source tree for cross-builds when the
// working directory is inside stackbench's own.
func remoteOptions(env Env, knownHosts string) remote.Options {
	o := remote.Options{AgentSocket: env.lookup("SSH_AUTH_SOCK"), Source: remote.FindSource(env.Dir)}
	if knownHosts != "" {
		o.KnownHosts = []string{knownHosts}
	}
	return o
}

// remoteHosts converts the file's hosts for internal/remote.
func remoteHosts(hosts []plan.Host) []remote.Host {
	out := make([]remote.Host, len(hosts))
	for i, h := range hosts {
		out[i] = remote.Host{Name: h.Name, User: h.User, Addr: h.Addr, Port: h.Port, Identity: h.Identity}
	}
	return out
}

// hostNeeds says what each host's roles require of it.
func hostNeeds(r *plan.Roles) map[string]remote.Need {
	needs := map[string]remote.Need{}
	if r == nil {
		return needs
	}
	if r.Database != "" {
		n := needs[r.Database]
		n.Postgres = true
		needs[r.Database] = n
	}
	for _, g := range r.Generators {
		n := needs[g]
		n.Clock = true
		needs[g] = n
	}
	return needs
}

// checkHosts checks every host of the file (see remote.CheckHosts), prints
// where each role runs and what each host answered, and returns an error
// naming every host that failed.
func checkHosts(ctx context.Context, w io.Writer, f *plan.File, o remote.Options) error {
	printRoles(w, f)
	checks := remote.CheckHosts(ctx, remoteHosts(f.Hosts), hostNeeds(f.Roles), o)
	fmt.Fprintf(w, "\nhosts, checked over SSH:\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	var failed []string
	for _, c := range checks {
		roles := strings.Join(f.Roles.Of(c.Host.Name), "+")
		if roles == "" {
			roles = "no role"
		}
		if c.Skipped {
			fmt.Fprintf(tw, "  %s\t%s\t%s\treached, host key known; not checked further (another host failed)\n", c.Host.Name, c.Host.Target(), roles)
			continue
		}
		if c.Err != nil {
			failed = append(failed, c.Err.Error())
			fmt.Fprintf(tw, "  %s\t%s\t%s\tFAILED after %s (below)\n", c.Host.Name, c.Host.Target(), roles, c.Took.Round(time.Millisecond))
			continue
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", c.Host.Name, c.Host.Target(), roles, describeCheck(c))
	}
	tw.Flush()
	if len(failed) > 0 {
		return fmt.Errorf("%s failed its check:\n  %s", countNoun(len(failed), "host"), strings.Join(failed, "\n  "))
	}
	return nil
}

// describeCheck is one checked host's line.
func describeCheck(c remote.Check) string {
	agent := "agent cached there"
	if c.Copied {
		agent = "agent copied"
	}
	parts := []string{
		fmt.Sprintf("%s, %d CPUs (%s)", c.Platform, c.Hello.CPUs, c.Hello.Hostname),
		agent + fmt.Sprintf(" (protocol %d)", c.Hello.Version),
		"clock " + c.Offset.String(),
		fmt.Sprintf("can listen (port %d was free)", c.FreePort),
	}
	if c.Postgres != "" {
		parts = append(parts, "PostgreSQL in "+c.Postgres)
	}
	return strings.Join(parts, "; ")
}

// printRoles says where each role runs.
func printRoles(w io.Writer, f *plan.File) {
	r := f.Roles
	where := func(host string) string {
		if host == "" {
			return "this machine"
		}
		for _, h := range f.Hosts {
			if h.Name == host {
				return h.Name + " (" + remote.Host{User: h.User, Addr: h.Addr, Port: h.Port}.Target() + ")"
			}
		}
		return host
	}
	fmt.Fprintf(w, "\nroles:\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  server\t%s\n", where(r.Server))
	db := where(r.Database)
	if f.Database != plan.Embedded {
		db = "the given URL"
	}
	fmt.Fprintf(tw, "  database\t%s\n", db)
	gens := "this machine"
	if len(r.Generators) > 0 {
		var names []string
		for _, g := range r.Generators {
			names = append(names, where(g))
		}
		gens = strings.Join(names, ", ") + ", the load split evenly"
	}
	fmt.Fprintf(tw, "  generators\t%s\n", gens)
	tw.Flush()
}
