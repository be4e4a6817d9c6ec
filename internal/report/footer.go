package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/stackbench/stackbench/internal/journal"
)

// footer lists how the run was measured: its protocol and its environment.
func footer(res *journal.Results) Footer {
	var f Footer
	p := res.Plan
	pr := p.Plan.Protocol
	add := func(list *[]Field, name, value string) {
		if value != "" {
			*list = append(*list, Field{name, value})
		}
	}
	add(&f.Protocol, "profile", pr.Profile)
	add(&f.Protocol, "concurrency", joinInts(pr.Concurrency))
	add(&f.Protocol, "warm-up / window", pr.Warmup.String()+" / "+pr.Window.String())
	add(&f.Protocol, "rounds", fmt.Sprint(pr.Rounds))
	add(&f.Protocol, "cases", strings.Join(pr.Cases, ", "))
	add(&f.Protocol, "fresh process per", pr.Fresh)
	add(&f.Protocol, "client timeout", pr.Timeout.String())
	if pr.Spread {
		add(&f.Protocol, "requests", "spread over all users")
	} else {
		add(&f.Protocol, "requests", "fixed (as the published runs)")
	}
	add(&f.Protocol, "contention gate", gateText(res))
	add(&f.Protocol, "boot starts per stack", fmt.Sprint(pr.BootStarts))
	add(&f.Protocol, "database", p.Database)
	add(&f.Protocol, "parity gate", parityText(res))
	add(&f.Protocol, "plan fingerprint", p.Plan.Fingerprint)
	add(&f.Protocol, "command", strings.Join(p.Args, " "))
	if n := len(res.Environments); n > 1 {
		add(&f.Protocol, "invocations", fmt.Sprintf("%d (resumed %d times)", n, n-1))
	}
	if len(res.Environments) == 0 {
		return f
	}
	env := res.Environments[0]
	h := env.Host
	add(&f.Environment, "os / arch", strings.Trim(h.OS+" / "+h.Arch, " /"))
	add(&f.Environment, "cpu", h.CPUModel)
	if h.CPUCount > 0 {
		add(&f.Environment, "cpus", fmt.Sprintf("%d (%g available to stackbench)", h.CPUCount, h.CPUsAvailable))
	}
	add(&f.Environment, "governor", h.Governor)
	if h.MemoryBytes > 0 {
		mem := fmtBytes(h.MemoryBytes)
		if h.MemoryLimitBytes > 0 {
			mem += ", cgroup limit " + fmtBytes(h.MemoryLimitBytes)
		}
		add(&f.Environment, "memory", mem)
	}
	add(&f.Environment, "kernel", h.Kernel)
	if h.Somaxconn > 0 {
		add(&f.Environment, "somaxconn", fmt.Sprint(h.Somaxconn))
	}
	if h.OpenFileLimit > 0 {
		add(&f.Environment, "open files", fmt.Sprintf("%d (hard %d)", h.OpenFileLimit, h.OpenFileLimitHard))
	}
	add(&f.Environment, "go", h.GoVersion)
	add(&f.Environment, "postgresql", env.PostgresVersion)
	for _, k := range slices.Sorted(maps.Keys(env.PostgresSettings)) {
		add(&f.Environment, "pg "+k, env.PostgresSettings[k])
	}
	versions := map[string]string{}
	for _, e := range res.Environments {
		for k, v := range e.StackVersions {
			versions[k] = v
		}
	}
	for _, k := range slices.Sorted(maps.Keys(versions)) {
		add(&f.Environment, "stack "+k, strings.TrimSpace(versions[k]))
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
