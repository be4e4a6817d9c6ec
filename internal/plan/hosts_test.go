package plan

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const threeHosts = `hosts:
  app1: {ssh: bench@app1.example}
  db1:  {ssh: "bench@10.0.0.7:2222", identity: key}
  load1: {ssh: "ops@[fe80::1]:22"}
  load2: {ssh: bench@load2.example}
roles:
  server: app1
  database: db1
  generators: [load1, load2]
`

func TestHostsAndRoles(t *testing.T) {
	path := writeConfig(t, threeHosts+validStacks)
	os.WriteFile(filepath.Join(filepath.Dir(path), "key"), []byte("k"), 0o600)
	f, err := LoadEnv(path, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	want := []Host{
		{Name: "app1", User: "bench", Addr: "app1.example", Port: 22, Line: 2},
		{Name: "db1", User: "bench", Addr: "10.0.0.7", Port: 2222, Identity: filepath.Join(filepath.Dir(path), "key"), Line: 3},
		{Name: "load1", User: "ops", Addr: "fe80::1", Port: 22, Line: 4},
		{Name: "load2", User: "bench", Addr: "load2.example", Port: 22, Line: 5},
	}
	if !reflect.DeepEqual(f.Hosts, want) {
		t.Fatalf("hosts\n%+v\nwant\n%+v", f.Hosts, want)
	}
	roles := &Roles{Server: "app1", Database: "db1", Generators: []string{"load1", "load2"}}
	if !reflect.DeepEqual(f.Roles, roles) || !f.Roles.Remote() {
		t.Fatalf("roles %+v", f.Roles)
	}
	if got := f.Roles.Of("db1"); !reflect.DeepEqual(got, []string{"database"}) {
		t.Fatalf("roles of db1 = %v", got)
	}
	// Where the roles run is part of the fingerprint; a file without
	// hosts keeps the one it had.
	with, _ := f.Resolve(Overrides{})
	plain := resolve(t, validStacks, Overrides{})
	f.Hosts[0].Addr = "app2.example"
	moved, _ := f.Resolve(Overrides{})
	if with.Fingerprint == plain.Fingerprint || with.Fingerprint == moved.Fingerprint {
		t.Fatal("the fingerprint does not change with the hosts")
	}
}

func TestSSHAddress(t *testing.T) {
	env := func(k string) string {
		if k == "USER" {
			return "me"
		}
		return ""
	}
	for _, c := range []struct {
		in   string
		want Host
		msg  string
	}{
		{in: "bench@h", want: Host{User: "bench", Addr: "h", Port: 22}},
		{in: "h:2200", want: Host{User: "me", Addr: "h", Port: 2200}},
		{in: "a@b@h", want: Host{User: "a@b", Addr: "h", Port: 22}},
		{in: "u@[::1]:23", want: Host{User: "u", Addr: "::1", Port: 23}},
		{in: "u@::1", want: Host{User: "u", Addr: "::1", Port: 22}},
		{in: "@h", msg: "user before @ is empty"},
		{in: "u@h:0", msg: `port "0" is not a TCP port`},
		{in: "u@h:ssh", msg: `port "ssh" is not a TCP port`},
		{in: "u@", msg: "is not user@host[:port]"},
		{in: "u@h/x", msg: "is not user@host[:port]"},
	} {
		got, msg := parseSSH(c.in, env)
		if c.msg != "" {
			if !strings.Contains(msg, c.msg) {
				t.Errorf("%q: %q; want %q", c.in, msg, c.msg)
			}
			continue
		}
		if msg != "" || got != c.want {
			t.Errorf("%q = %+v, %q; want %+v", c.in, got, msg, c.want)
		}
	}
	if _, msg := parseSSH("h", noEnv); !strings.Contains(msg, "$USER is not set") {
		t.Errorf("no user, no $USER: %q", msg)
	}
}

func TestHostsProblems(t *testing.T) {
	for _, c := range []struct {
		name, file string
		want       []string
	}{
		{"hosts without roles", "hosts:\n  app1: {ssh: b@h}\n", []string{"2:3: hosts: names hosts but no roles: section"}},
		{"roles without hosts", "roles: {server: app1}\n", []string{`1:17: roles server names host "app1", but the file has no hosts: section`}},
		{"unknown host", "hosts:\n  app1: {ssh: b@h}\nroles: {server: app2}\n", []string{`3:17: roles server names host "app2", which is not in hosts: (app1); did you mean "app1"?`}},
		{"twice a generator", "hosts:\n  l1: {ssh: b@h}\nroles: {generators: [l1, l1]}\n", []string{`3:26: roles generators names "l1" twice`}},
		{"no ssh", "hosts:\n  app1: {identity: x}\nroles: {server: app1}\n", []string{"2:9: host \"app1\" has no ssh: address"}},
		{"missing identity", "hosts:\n  app1: {ssh: b@h, identity: nope}\nroles: {server: app1}\n", []string{"2:30: host \"app1\" identity nope is not a readable file"}},
		{"unknown key", "hosts:\n  app1: {ssh: b@h, port: 2}\nroles: {server: app1}\n", []string{`2:20: unknown key "port" in host "app1"`}},
		{"empty roles", "hosts:\n  app1: {ssh: b@h}\nroles: {}\n", []string{"3:8: roles: places no role on a host"}},
		{"database URL", "database: postgres://u@h/db\nhosts:\n  db1: {ssh: b@h}\nroles: {database: db1}\n", []string{`4:8: roles database puts the embedded cluster on host "db1", but database: is a URL`}},
		{"top-level placement", "placement: {server: app1}\n", []string{"1:1: placement: belongs under protocol: (CPU lanes on this machine"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := loadProblems(t, c.file+validStacks)
			if len(got) != len(c.want) {
				t.Fatalf("problems %q; want %q", got, c.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], c.want[i]) {
					t.Errorf("problem %q; want it to start %q", got[i], c.want[i])
				}
			}
		})
	}
}

// A host that runs no role is checked all the same, with a warning.
func TestIdleHostWarns(t *testing.T) {
	f, err := LoadEnv(writeConfig(t, "hosts:\n  app1: {ssh: b@h}\n  spare: {ssh: b@s}\nroles: {server: app1}\n"+validStacks), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Warnings) != 1 || !strings.Contains(f.Warnings[0].Msg, `host "spare" runs no role`) {
		t.Fatalf("warnings %+v", f.Warnings)
	}
}
