package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
)

// footer lists how the run was measured: its protocol and its environment.
func footer(res *journal.Results) Footer {
	return Footer{Protocol: protocolFields(res), Environment: environmentFields(res)}
}

// fields is a list of footer fields; empty values are left out.
type fields []Field

func (l *fields) add(name, value string) {
	if value != "" {
		*l = append(*l, Field{name, value})
	}
}

// protocolFields are the plan's protocol and how the run went through it.
func protocolFields(res *journal.Results) []Field {
	var f fields
	p := res.Plan
	pr := res.RunPlan().Protocol
	f.add("profile", pr.Profile)
	f.add("concurrency", joinInts(pr.Concurrency))
	f.add("warm-up / window", plan.WarmupText(pr)+" / "+pr.Window.String())
	f.add("rounds", fmt.Sprint(pr.Rounds))
	f.add("cases", strings.Join(pr.Cases, ", "))
	f.add("fresh process per", pr.Fresh)
	f.add("client timeout", pr.Timeout.String())
	switch v := variantsText(res.Plan.Cases); {
	case v != "":
		f.add("requests", v)
	case pr.Spread:
		f.add("requests", "spread over all users")
	default:
		f.add("requests", "fixed (as the published runs)")
	}
	f.add("contention gate", gateText(res))
	f.add("boot starts per stack", fmt.Sprint(pr.BootStarts))
	if pr.Placement.Mode != "" {
		f.add("placement", pr.Placement.String())
	}
	f.add("database", p.Database)
	for _, s := range p.Plan.Stacks {
		if s.Git != nil {
			f.add("git "+s.Name, s.Git.Rev+" at commit "+s.Git.Commit)
		}
	}
	f.add("parity gate", parityText(res))
	f.add("plan fingerprint", p.Plan.Fingerprint)
	f.add("command", strings.Join(p.Args, " "))
	if n := len(res.Environments); n > 1 {
		f.add("invocations", fmt.Sprintf("%d (resumed %d times)", n, n-1))
	}
	return f
}

// environmentFields describe the machine of the run's first invocation,
// and every stack's version.
func environmentFields(res *journal.Results) []Field {
	if len(res.Environments) == 0 {
		return nil
	}
	var f fields
	env := res.Environments[0]
	h := env.Host
	f.add("os / arch", strings.Trim(h.OS+" / "+h.Arch, " /"))
	f.add("cpu", h.CPUModel)
	if h.CPUCount > 0 {
		f.add("cpus", fmt.Sprintf("%d (%g available to stackbench)", h.CPUCount, h.CPUsAvailable))
	}
	f.add("affinity mask", env.AffinityCPUs)
	f.add("governor", h.Governor)
	if h.MemoryBytes > 0 {
		mem := fmtBytes(h.MemoryBytes)
		if h.MemoryLimitBytes > 0 {
			mem += ", cgroup limit " + fmtBytes(h.MemoryLimitBytes)
		}
		f.add("memory", mem)
	}
	f.add("kernel", h.Kernel)
	if h.Somaxconn > 0 {
		f.add("somaxconn", fmt.Sprint(h.Somaxconn))
	}
	if h.OpenFileLimit > 0 {
		f.add("open files", fmt.Sprintf("%d (hard %d)", h.OpenFileLimit, h.OpenFileLimitHard))
	}
	f.add("go", h.GoVersion)
	f.add("postgresql", env.PostgresVersion)
	for _, k := range slices.Sorted(maps.Keys(env.PostgresSettings)) {
		f.add("pg "+k, env.PostgresSettings[k])
	}
	versions := map[string]string{}
	for _, e := range res.Environments {
		maps.Copy(versions, e.StackVersions)
	}
	for _, k := range slices.Sorted(maps.Keys(versions)) {
		f.add("stack "+k, strings.TrimSpace(versions[k]))
	}
	return f
}

// gateText describes the contention gate as configured and as calibrated.
func gateText(res *journal.Results) string {
	g := res.Plan.Plan.Protocol.Gate
	s := g.Mode
	if len(res.Environments) > 0 {
		e := res.Environments[0]
		if e.GateThresholdCores > 0 {
			s += fmt.Sprintf(": foreign CPU under %.2f cores (idle baseline %.2f)", e.GateThresholdCores, e.GateBaselineCores)
		}
	}
	if g.Retries > 0 {
		s += fmt.Sprintf(", %d retries", g.Retries)
	}
	return s
}

// parityText is the parity gate's outcome in a few words.
func parityText(res *journal.Results) string {
	if res.Plan.SkipParity {
		return "skipped (--skip-parity)"
	}
	if len(res.Parity) == 0 {
		return "no record"
	}
	p := res.Parity[len(res.Parity)-1]
	switch {
	case p.Skipped:
		return "skipped"
	case p.Passed:
		return "passed"
	default:
		return "failed"
	}
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// variantsText lists the cases whose load cycled over request variants
// ("article: 200 variants, me: 1 request"); "" when none did.
func variantsText(cases []journal.Case) string {
	var parts []string
	varied := false
	for _, c := range cases {
		if c.Variants > 1 {
			varied = true
			parts = append(parts, fmt.Sprintf("%s: %d variants", c.Name, c.Variants))
		} else {
			parts = append(parts, c.Name+": 1 request")
		}
	}
	if !varied {
		return ""
	}
	return strings.Join(parts, ", ")
}
