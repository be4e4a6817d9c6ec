package pgfix

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"

	"github.com/stackbench/stackbench/internal/platform/local"
)

// serverAccountName is the unprivileged account the server runs as when
// stackbench runs as root: PostgreSQL refuses to run as root.
const serverAccountName = "postgres"

// account is the identity initdb, pg_ctl and postgres run as. When
// stackbench is not root it is the current user and nothing is switched.
type account struct {
	name     string
	uid, gid int
	switched bool // true when commands run under another identity
}

// serverAccount returns the account to run the server as.
func serverAccount() (account, error) {
	if os.Geteuid() != 0 {
		return account{name: currentUserName(), uid: os.Geteuid(), gid: os.Getegid()}, nil
	}
	u, err := user.Lookup(serverAccountName)
	if err != nil {
		return account{}, fmt.Errorf("running as root, and PostgreSQL will not run as root: "+
			"the unprivileged account %q does not exist (%v); create it (useradd --system %s), "+
			"run stackbench as an ordinary user, or pass --database-url", serverAccountName, err, serverAccountName)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil {
		return account{}, fmt.Errorf("account %q has a non-numeric uid %q or gid %q", u.Username, u.Uid, u.Gid)
	}
	return account{name: u.Username, uid: uid, gid: gid, switched: true}, nil
}

func currentUserName() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return strconv.Itoa(os.Geteuid())
}

// command returns a command that runs as the account, in "/" so that a
// working directory the account cannot enter does not matter.
func (a account) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = "/"
	if a.switched {
		local.RunAs(cmd, a.uid, a.gid)
		home := "/"
		if u, err := user.Lookup(a.name); err == nil && u.HomeDir != "" {
			home = u.HomeDir
		}
		cmd.Env = append(os.Environ(), "HOME="+home, "USER="+a.name, "LOGNAME="+a.name)
	}
	return cmd
}

// own gives path to the account when commands run under another identity.
func (a account) own(path string) error {
	if !a.switched {
		return nil
	}
	if err := os.Lchown(path, a.uid, a.gid); err != nil {
		return fmt.Errorf("give %s to user %s: %w", path, a.name, err)
	}
	return nil
}

// checkReachable returns an error when the account cannot enter dir because
// a directory on the way (dir included) lacks search permission for it.
func (a account) checkReachable(dir string) error {
	if !a.switched {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for p := abs; ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		if !a.canSearch(fi) {
			return fmt.Errorf("the database server runs as user %s (stackbench runs as root), which cannot enter %s "+
				"(mode %04o, owner uid %d): choose a directory it can reach, e.g. --dir /tmp/stackbench-db, "+
				"or allow it with chmod o+x %s", a.name, p, fi.Mode().Perm(), ownerUID(fi), p)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

func (a account) canSearch(fi os.FileInfo) bool {
	perm := fi.Mode().Perm()
	uid, gid, ok := local.FileOwner(fi)
	if !ok {
		return perm&0o001 != 0
	}
	switch {
	case uid == a.uid:
		return perm&0o100 != 0
	case gid == a.gid:
		return perm&0o010 != 0
	default:
		return perm&0o001 != 0
	}
}

func ownerUID(fi os.FileInfo) int {
	uid, _, _ := local.FileOwner(fi)
	return uid
}
