package plan

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Host is one machine of the hosts: section, reached over SSH
// (internal/remote).
type Host struct {
	// Name is the host's key in hosts:, the name roles: use.
	Name string `json:"name"`
	User string `json:"user"`
	// Addr is the host name or IP address to dial; Port its SSH port.
	Addr string `json:"addr"`
	Port int    `json:"port"`
	// Identity is an absolute path to a private key file; empty means the
	// ssh-agent's keys (SSH_AUTH_SOCK).
	Identity string `json:"identity,omitempty"`
	Line     int    `json:"-"`
}

// Roles says which host of hosts: runs each role. An empty Server or
// Database runs that role on this machine, as without hosts:; no
// Generators runs the load generator here.
type Roles struct {
	// Server is the host every stack's server runs on.
	Server string `json:"server,omitempty"`
	// Database is the host the embedded PostgreSQL cluster runs on.
	Database string `json:"database,omitempty"`
	// Generators are the hosts the load is split across, in file order.
	Generators []string `json:"generators,omitempty"`
}

// Remote reports whether any role runs on another host.
func (r *Roles) Remote() bool {
	return r != nil && (r.Server != "" || r.Database != "" || len(r.Generators) > 0)
}

// Of returns the roles host runs, as the plan shows them ("server",
// "database", "generator").
func (r *Roles) Of(host string) []string {
	var out []string
	if r == nil {
		return nil
	}
	if r.Server == host {
		out = append(out, "server")
	}
	if r.Database == host {
		out = append(out, "database")
	}
	if slices.Contains(r.Generators, host) {
		out = append(out, "generator")
	}
	return out
}

var (
	hostKeys    = []string{"ssh", "identity"}
	rolesKeys   = []string{"server", "database", "generators"}
	hostExample = "app1: {ssh: bench@app1.example}"
)

// hosts reads the hosts: section, in file order. The names of hosts with
// problems are kept in p.brokenHosts, so that roles naming them add no
// problem of their own.
func (p *parser) hosts(n *yaml.Node) []Host {
	n = deref(n)
	if n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		p.addf(n, "hosts must be a mapping of host names to {ssh: user@host[:port]}, not %s; write e.g.\n    hosts:\n      %s", describe(n), hostExample)
		return nil
	}
	var out []Host
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		name := k.Value
		if k.Kind != yaml.ScalarNode || !namePattern.MatchString(name) {
			p.addf(k, "host name %s may only contain letters, digits, '.', '_' and '-'; write e.g. %s", describe(k), hostExample)
			continue
		}
		if first, dup := seen[name]; dup {
			p.addf(k, "host %q appears twice in hosts (first at line %d); keep one", name, first)
			continue
		}
		seen[name] = k.Line
		if h, ok := p.host(name, v); ok {
			h.Line = k.Line
			out = append(out, h)
		} else {
			p.brokenHosts = append(p.brokenHosts, name)
		}
	}
	return out
}

// host reads one host's {ssh:, identity:}.
func (p *parser) host(name string, n *yaml.Node) (Host, bool) {
	what := "host " + strconv.Quote(name)
	m, ok := p.fields(n, what, hostKeys, "{ssh: bench@"+name+".example}")
	if !ok {
		return Host{}, false
	}
	v := m.get("ssh")
	if v == nil {
		p.addf(n, "%s has no ssh: address; write %s: {ssh: bench@%s.example}", what, name, name)
		return Host{}, false
	}
	s, ok := p.str(v, what+" ssh", "ssh: bench@"+name+".example")
	if !ok {
		return Host{}, false
	}
	h, msg := parseSSH(s, p.getenv)
	if msg != "" {
		p.addf(v, "%s ssh %q: %s", what, s, msg)
		return Host{}, false
	}
	h.Name = name
	if v := m.get("identity"); v != nil {
		id, ok := p.str(v, what+" identity", "identity: ~/.ssh/bench_ed25519")
		if !ok {
			return Host{}, false
		}
		h.Identity = p.expandHome(id)
		if st, err := os.Stat(h.Identity); err != nil || !st.Mode().IsRegular() {
			p.addf(v, "%s identity %s is not a readable file; write the path of the private key, e.g. identity: ~/.ssh/bench_ed25519", what, id)
			return Host{}, false
		}
	}
	return h, true
}

// expandHome makes a path absolute: ~/ is the home directory, and a
// relative path starts at the file's directory.
func (p *parser) expandHome(path string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home := p.getenv("HOME"); home != "" {
			return filepath.Join(home, rest)
		}
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	if !filepath.IsAbs(path) {
		return filepath.Join(p.dir, path)
	}
	return path
}

// parseSSH reads user@host[:port] (an IPv6 address in brackets); without
// a user it is $USER. A non-empty message says what is wrong.
func parseSSH(s string, getenv func(string) string) (Host, string) {
	var h Host
	rest := s
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		h.User, rest = s[:i], s[i+1:]
		if h.User == "" {
			return h, "the user before @ is empty; write user@host[:port]"
		}
	} else if h.User = getenv("USER"); h.User == "" {
		return h, "names no user and $USER is not set; write user@host[:port]"
	}
	h.Port = 22
	if host, port, err := net.SplitHostPort(rest); err == nil {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return h, "port " + strconv.Quote(port) + " is not a TCP port; write user@host:22"
		}
		h.Addr, h.Port = host, n
	} else {
		h.Addr = strings.TrimSuffix(strings.TrimPrefix(rest, "["), "]")
	}
	if h.Addr == "" || strings.ContainsAny(h.Addr, " /@") || strings.Count(h.Addr, ":") == 1 {
		return h, "is not user@host[:port]; write e.g. bench@app1.example or bench@10.0.0.5:2222"
	}
	return h, ""
}

// roles reads the roles: section against the hosts already read.
func (p *parser) roles(n *yaml.Node, hosts []Host) *Roles {
	const example = "roles: {server: app1, database: db1, generators: [load1, load2]}"
	m, ok := p.fields(n, "roles", rolesKeys, example)
	if !ok {
		return nil
	}
	names := make([]string, len(hosts))
	for i, h := range hosts {
		names[i] = h.Name
	}
	known := func(v *yaml.Node, field string) (string, bool) {
		s, ok := p.str(v, "roles "+field, field+": "+firstOr(names, "app1"))
		if !ok {
			return "", false
		}
		if slices.Contains(p.brokenHosts, s) {
			return "", false // its problem is reported at the host
		}
		if !slices.Contains(names, s) {
			if len(names) == 0 {
				p.addf(v, "roles %s names host %q, but the file has no hosts: section; add hosts: {%s: {ssh: user@host}}", field, s, s)
			} else {
				p.addf(v, "roles %s names host %q, which is not in hosts: (%s); %s", field, s, strings.Join(names, ", "), didYouMean(s, names))
			}
			return "", false
		}
		return s, true
	}
	p.rolesGiven = len(m.vals) > 0
	r := &Roles{}
	if v := m.get("server"); v != nil {
		r.Server, _ = known(v, "server")
	}
	if v := m.get("database"); v != nil {
		r.Database, _ = known(v, "database")
	}
	if v := m.get("generators"); v != nil {
		items, _ := p.items(v, "roles generators", "generators: [load1, load2]")
		for _, it := range items {
			s, ok := known(it, "generators")
			if !ok {
				continue
			}
			if slices.Contains(r.Generators, s) {
				p.addf(it, "roles generators names %q twice; a host runs one generator", s)
				continue
			}
			r.Generators = append(r.Generators, s)
		}
	}
	return r
}

func firstOr(xs []string, def string) string {
	if len(xs) > 0 {
		return xs[0]
	}
	return def
}

// checkHosts checks hosts: and roles: against each other and the rest of
// the file once all of it is read.
func (p *parser) checkHosts(m mapping, f *File) {
	hostsNode, rolesNode := m.get("hosts"), m.get("roles")
	if len(f.Hosts) > 0 && rolesNode == nil {
		p.addf(hostsNode, "hosts: names hosts but no roles: section puts anything on them; add e.g. roles: {server: %s}", f.Hosts[0].Name)
		return
	}
	if f.Roles == nil {
		return
	}
	if !f.Roles.Remote() {
		if p.rolesGiven {
			return // each role's problem is reported already
		}
		p.addf(rolesNode, "roles: places no role on a host; write e.g. roles: {server: app1, generators: [load1]} or remove it")
		return
	}
	for _, h := range f.Hosts {
		if len(f.Roles.Of(h.Name)) == 0 {
			f.Warnings = append(f.Warnings, Problem{File: p.name, Line: h.Line,
				Msg: "host " + strconv.Quote(h.Name) + " runs no role (roles: does not name it); it is still checked by stackbench plan"})
		}
	}
	if f.Roles.Database != "" && f.Database != Embedded {
		p.addf(rolesNode, "roles database puts the embedded cluster on host %q, but database: is a URL, so the database is already elsewhere; remove one of the two", f.Roles.Database)
	}
}
