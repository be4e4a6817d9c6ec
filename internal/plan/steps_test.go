package plan

import (
	"strings"
	"testing"
)

func TestStepTreeFrom(t *testing.T) {
	file := `stacks:
  - {name: a, dir: apps/a, start: ./s}
  - {name: b, dir: apps/b, start: ./s}
  - {name: c, from: a, dir: apps/a, start: ./s}
  - {name: d, from: c, dir: apps/a, start: ./s}
`
	p := resolve(t, file, Overrides{})
	from := map[string]string{}
	for _, s := range p.Stacks {
		from[s.Name] = s.From
	}
	if from["a"] != "" || from["b"] != "" || from["c"] != "a" || from["d"] != "c" {
		t.Errorf("from: %v", from)
	}
	// Leaving c out: d steps from c's own from, a.
	p = resolve(t, file, Overrides{Stacks: []string{"a", "b", "d"}})
	if got := p.Stacks[2]; got.Name != "d" || got.From != "a" {
		t.Errorf("d without c: %+v", got)
	}
	// Leaving a out: c had no kept ancestor, so it steps from the previous
	// kept stack, b; b is now first and steps from nothing.
	p = resolve(t, file, Overrides{Stacks: []string{"b", "c"}})
	if p.Stacks[0].From != "" || p.Stacks[1].From != "b" {
		t.Errorf("without a: %+v", p.Stacks)
	}
}

func TestStepFromProblems(t *testing.T) {
	for _, c := range []struct{ name, yaml, want string }{
		{"later stack", "stacks:\n  - {name: a, from: b, dir: apps/a, start: ./s}\n  - {name: b, dir: apps/b, start: ./s}\n",
			`2:21: stack "a" has from: b, which is not a stack listed before it`},
		{"itself", "stacks:\n  - {name: a, dir: apps/a, start: ./s}\n  - {name: b, from: b, dir: apps/b, start: ./s}\n",
			`3:21: stack "b" has from: b, itself`},
		{"unknown", "stacks:\n  - {name: a, dir: apps/a, start: ./s}\n  - {name: b, from: x, dir: apps/b, start: ./s}\n",
			`3:21: stack "b" has from: x, which is not a stack listed before it`},
	} {
		got := strings.Join(loadProblems(t, c.yaml), "\n")
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: problems\n%s\nlack %q", c.name, got, c.want)
		}
	}
}

func TestMinEffect(t *testing.T) {
	p := resolve(t, validStacks, Overrides{})
	if p.Protocol.MinEffect != DefaultMinEffect {
		t.Errorf("default min_effect %v", p.Protocol.MinEffect)
	}
	for _, v := range []string{"3%", "3 %", "0.03"} {
		p = resolve(t, "protocol:\n  min_effect: "+v+"\n"+validStacks, Overrides{})
		if p.Protocol.MinEffect != 0.03 {
			t.Errorf("min_effect: %s gave %v", v, p.Protocol.MinEffect)
		}
	}
	p = resolve(t, "protocol:\n  min_effect: 3%\n"+validStacks, Overrides{MinEffect: 0.1})
	if p.Protocol.MinEffect != 0.1 {
		t.Errorf("the command line's min effect should win: %v", p.Protocol.MinEffect)
	}
	for _, v := range []string{"0", "100%", "-2%", "five", "1.5"} {
		got := strings.Join(loadProblems(t, "protocol:\n  min_effect: "+v+"\n"+validStacks), "\n")
		if !strings.Contains(got, "2:15: min_effect") {
			t.Errorf("min_effect: %s: %s", v, got)
		}
	}
}
