// Package sshtest gives tests hosts to reach over SSH on one machine:
// network namespaces joined to ours by veth pairs, each running Debian's
// sshd with throwaway host keys and config, a throwaway user key allowed
// in, and a known_hosts file that vouches for every host. Everything it
// makes is removed in t.Cleanup, even when the test fails. It needs root,
// ip(8) and sshd; without them a test is skipped, or fails when CI is set.
package sshtest

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/stackbench/stackbench/internal/platform/local"
)

// Host is one namespace with sshd.
type Host struct {
	Name string
	// NS is the network namespace; Addr its address, reachable from ours.
	NS   string
	Addr string
	Port int
	// Key is the host's public key.
	Key ssh.PublicKey
}

// HostPort is Addr:Port.
func (h Host) HostPort() string { return net.JoinHostPort(h.Addr, strconv.Itoa(h.Port)) }

// Net is a set of hosts and what reaches them.
type Net struct {
	Hosts []Host
	// User is the user to log in as (the test's own: root).
	User string
	// Identity is the private key file sshd accepts.
	Identity string
	// KnownHosts vouches for every host's key.
	KnownHosts string
	// Unreachable is an address on a namespace's link that nothing
	// answers: a dial to it times out.
	Unreachable string
	dir         string
}

// Require skips the test without root, ip or sshd, or fails it when the
// CI environment variable is set (.ci/run installs openssh-server).
func Require(t testing.TB) {
	t.Helper()
	var missing []string
	if os.Geteuid() != 0 {
		missing = append(missing, "root")
	}
	for _, tool := range []string{"ip", "nsenter", "/usr/sbin/sshd"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) == 0 {
		return
	}
	msg := "needs " + strings.Join(missing, ", ") + " (network namespaces and Debian's openssh-server: apt-get install openssh-server)"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// Start makes one namespace with sshd per name.
func Start(t testing.TB, names ...string) *Net {
	t.Helper()
	return StartWith(t, Options{}, names...)
}

// Options are what some tests need of the hosts beyond Start's.
type Options struct {
	// Env holds, by host name, KEY=VALUE variables that host's sshd
	// sets in its sessions (SetEnv): what a real host's login
	// environment would say, such as DOCKER_HOST naming the host's own
	// container daemon.
	Env map[string][]string
}

// StartWith is Start with o.
func StartWith(t testing.TB, o Options, names ...string) *Net {
	t.Helper()
	Require(t)
	dir, err := os.MkdirTemp("", "sshtest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil { // sshd's privilege separation directory
		t.Fatal(err)
	}
	n := &Net{User: "root", dir: dir, Identity: filepath.Join(dir, "id_ed25519"), KnownHosts: filepath.Join(dir, "known_hosts")}
	userPub := WriteKey(t, n.Identity)
	authorized := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(authorized, ssh.MarshalAuthorizedKey(userPub), 0o600); err != nil {
		t.Fatal(err)
	}
	// A subnet and names of this test alone, reserved by a lock: two test
	// binaries running at once (go test runs packages side by side) once
	// drew the same subnet from their pids, and a route of one reached
	// the other's hosts ("connection refused" from a namespace whose sshd
	// had gone).
	tag := reserveSlot(t)
	subnet := fmt.Sprintf("10.%d.0.", 100+tag)
	sw := switchNS(t, tag, subnet)
	n.Unreachable = subnet + "250"
	var known []string
	for i, name := range names {
		h := Host{Name: name, NS: fmt.Sprintf("sbt%d-%d", tag, i), Addr: subnet + strconv.Itoa(i+2), Port: 22}
		t.Cleanup(func() { exec.Command("ip", "netns", "del", h.NS).Run() })
		ip(t, "netns", "add", h.NS)
		plug(t, sw, fmt.Sprintf("sbo%d-%d", tag, i), fmt.Sprintf("sbi%d-%d", tag, i), h.NS, h.Addr)
		ip(t, "-n", h.NS, "link", "set", "lo", "up")
		hostKey := filepath.Join(dir, name+"_host_ed25519")
		h.Key = WriteKey(t, hostKey)
		cfg := filepath.Join(dir, name+"_sshd_config")
		conf := strings.Join([]string{
			"Port 22",
			"ListenAddress " + h.Addr,
			"HostKey " + hostKey,
			"AuthorizedKeysFile " + authorized,
			"PidFile " + filepath.Join(dir, name+".pid"),
			"StrictModes no",
			"PasswordAuthentication no",
			"KbdInteractiveAuthentication no",
			"UsePAM no",
			"PermitRootLogin prohibit-password",
			"LogLevel ERROR",
		}, "\n") + "\n"
		// SHLVL=1 makes each session's bash a nested shell, which does
		// not read ~/.bashrc: the hosts share this machine's home, whose
		// .bashrc is its user's (pyenv's init took 1–2 s of every SSH
		// command here), not a host's. sshd reads only its first SetEnv.
		conf += "SetEnv " + strings.Join(append([]string{"SHLVL=1"}, o.Env[name]...), " ") + "\n"
		if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
		log, err := os.Create(filepath.Join(dir, name+"_sshd.log"))
		if err != nil {
			t.Fatal(err)
		}
		// Only the network namespace is entered: the host sees this
		// machine's /sys, cgroups included, as a real host sees its own
		// (ip netns exec would mount a fresh sysfs without
		// /sys/fs/cgroup, where a container's CPU is read).
		cmd := exec.Command("nsenter", "--net=/run/netns/"+h.NS, "/usr/sbin/sshd", "-D", "-e", "-f", cfg)
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			t.Fatalf("start sshd in %s: %v", h.NS, err)
		}
		t.Cleanup(func() {
			cmd.Process.Kill()
			cmd.Wait()
			log.Close()
		})
		if err := waitListening(h.HostPort(), 10*time.Second); err != nil {
			data, _ := os.ReadFile(log.Name())
			t.Fatalf("sshd in %s: %v\n%s", h.NS, err, data)
		}
		known = append(known, knownhosts.Line([]string{knownhosts.Normalize(h.HostPort())}, h.Key))
		n.Hosts = append(n.Hosts, h)
	}
	if err := os.WriteFile(n.KnownHosts, []byte(strings.Join(known, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return n
}

// Host returns the host of that name.
func (n *Net) Host(name string) Host {
	for _, h := range n.Hosts {
		if h.Name == name {
			return h
		}
	}
	panic("sshtest: no host " + name)
}

// KnownHostsWith writes a known_hosts file holding lines for the given
// hosts only, each with key when key is not nil (a changed key), and
// returns its path.
func (n *Net) KnownHostsWith(t testing.TB, key ssh.PublicKey, names ...string) string {
	t.Helper()
	var lines []string
	for _, name := range names {
		h := n.Host(name)
		k := h.Key
		if key != nil {
			k = key
		}
		lines = append(lines, knownhosts.Line([]string{knownhosts.Normalize(h.HostPort())}, k))
	}
	f, err := os.CreateTemp(n.dir, "known_hosts-")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.Join(lines, "\n") + "\n"); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

// NewKey returns a fresh public key, as a changed host key.
func NewKey(t testing.TB) ssh.PublicKey {
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// slotDir holds one lock file per subnet slot in use on this machine.
const slotDir = "/run/stackbench-sshtest"

// reserveSlot takes a free slot (0–99) for the rest of the test, holding
// its lock file open until the test's cleanup. A slot's lock is held by
// one live process at most: what a killed test left under its names is
// removed before the slot is used again.
func reserveSlot(t testing.TB) int {
	t.Helper()
	if err := os.MkdirAll(slotDir, 0o700); err != nil {
		t.Fatal(err)
	}
	for slot := range 100 {
		f, err := os.OpenFile(filepath.Join(slotDir, strconv.Itoa(slot)+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if err := local.TryLock(f); err != nil {
			f.Close()
			if errors.Is(err, local.ErrLocked) {
				continue
			}
			t.Fatal(err)
		}
		removeLeftovers(slot)
		t.Cleanup(func() { f.Close() })
		return slot
	}
	t.Fatal("all 100 sshtest subnets are in use on this machine")
	return 0
}

// removeLeftovers deletes the namespaces and our end of the switch that a
// killed test left under slot's names.
func removeLeftovers(slot int) {
	exec.Command("ip", "link", "del", fmt.Sprintf("sbo%d-sw", slot)).Run()
	out, _ := exec.Command("ip", "netns", "list").Output()
	for _, l := range strings.Split(string(out), "\n") {
		name, _, _ := strings.Cut(l, " ")
		if strings.HasPrefix(name, fmt.Sprintf("sbt%d-", slot)) {
			exec.Command("ip", "netns", "del", name).Run()
		}
	}
}

// switchNS makes the namespace that joins the hosts and us: a bridge in a
// namespace of its own, so that no forwarding or firewall setting of this
// machine is read or changed. Our end of it gets subnet.1.
func switchNS(t testing.TB, tag int, subnet string) string {
	t.Helper()
	sw := fmt.Sprintf("sbt%d-sw", tag)
	ours := fmt.Sprintf("sbo%d-sw", tag)
	t.Cleanup(func() {
		exec.Command("ip", "link", "del", ours).Run()
		exec.Command("ip", "netns", "del", sw).Run()
	})
	ip(t, "netns", "add", sw)
	ip(t, "-n", sw, "link", "add", "br0", "type", "bridge")
	ip(t, "-n", sw, "link", "set", "br0", "up")
	plug(t, sw, fmt.Sprintf("sbi%d-sw", tag), ours, "", subnet+"1")
	return sw
}

// plug joins a namespace (ns; "" is ours) to the switch's bridge with a
// veth pair: port goes into the switch, end into ns with addr.
func plug(t testing.TB, sw, port, end, ns, addr string) {
	t.Helper()
	ip(t, "link", "add", port, "type", "veth", "peer", "name", end)
	ip(t, "link", "set", port, "netns", sw)
	ip(t, "-n", sw, "link", "set", port, "master", "br0")
	ip(t, "-n", sw, "link", "set", port, "up")
	in := []string{}
	if ns != "" {
		ip(t, "link", "set", end, "netns", ns)
		in = []string{"-n", ns}
	}
	ip(t, append(in, "addr", "add", addr+"/24", "dev", end)...)
	ip(t, append(in, "link", "set", end, "up")...)
}

func ip(t testing.TB, args ...string) {
	t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

// WriteKey writes a fresh ed25519 private key in OpenSSH's format and
// returns its public key.
func WriteKey(t testing.TB, path string) ssh.PublicKey {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	k, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func waitListening(addr string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("nothing listens on %s after %s: %w", addr, within, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ForgetAgent removes the agent the test binary's copies leave in the
// hosts' cache, as ForgetAgentOf does: the namespaces share our file
// system and home, so the cache is ~/.cache/stackbench/agent-HASH16
// (remote.agentPath) of this machine.
func ForgetAgent(t testing.TB) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ForgetAgentOf(t, exe)
}

// agentUsers counts, per cached agent, the tests of this binary that use
// it now.
var agentUsers = struct {
	sync.Mutex
	n map[string]int
}{n: map[string]int{}}

// ForgetAgentOf removes the agent that copying the binary bin leaves in
// the hosts' cache (the namespaces share our home). The tests of one
// binary that use it at once share it: the first of them removes what an
// earlier test left (so its first connection copies the binary), and the
// last to end removes it, so that tests running in parallel never remove
// the agent under one another.
func ForgetAgentOf(t testing.TB, bin string) {
	t.Helper()
	useAgentOf(t, bin, nil)
}

// PlaceAgentOf puts a copy of the binary bin in the hosts' cache, where
// copying it over SSH would leave it, and removes it as ForgetAgentOf
// does. The namespaces share this machine's file system, so every host
// finds it there: a run's connections skip the copy of some 40 MB to each
// of its hosts at once (about 5 s on a busy machine), which
// internal/remote's tests cover.
func PlaceAgentOf(t testing.TB, bin string) {
	t.Helper()
	useAgentOf(t, bin, func(path string, data []byte) error {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		// Renamed into place, as the copy over SSH is: a host never
		// runs a half-written agent.
		tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
		if err := os.WriteFile(tmp, data, 0o755); err != nil {
			return err
		}
		return os.Rename(tmp, path)
	})
}

// useAgentOf counts a test among the users of bin's cached agent, calls
// place (when set) with its path and bin's content, and removes the agent
// when the last user ends.
func useAgentOf(t testing.TB, bin string, place func(path string, data []byte) error) {
	t.Helper()
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, ".cache", "stackbench", "agent-"+hex.EncodeToString(sum[:])[:16])
	agentUsers.Lock()
	if agentUsers.n[path] == 0 {
		os.Remove(path)
	}
	agentUsers.n[path]++
	var err2 error
	if place != nil {
		err2 = place(path, data)
	}
	agentUsers.Unlock()
	t.Cleanup(func() {
		agentUsers.Lock()
		defer agentUsers.Unlock()
		if agentUsers.n[path]--; agentUsers.n[path] == 0 {
			os.Remove(path)
		}
	})
	if err2 != nil {
		t.Fatalf("place the agent %s: %v", path, err2)
	}
}
