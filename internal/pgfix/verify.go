package pgfix

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// CheckDataDirectory returns an error unless the server the cluster's
// files lead to (cluster.json's password, postmaster.pid's port) says its
// data directory is this cluster's (SHOW data_directory), the same
// directory. A cluster directory is data: a forged cluster.json beside a
// copied postmaster.pid leads to another server, whose databases a seed
// or a reset would replace. Call it before changing anything there.
func (c *Cluster) CheckDataDirectory(ctx context.Context) error {
	conn, err := connect(ctx, c.AdminURL())
	if err != nil {
		return fmt.Errorf("check the server of the cluster in %s: %w", c.dir, err)
	}
	defer conn.Close(context.Background())
	var reported string
	if err := conn.QueryRow(ctx, "SHOW data_directory").Scan(&reported); err != nil {
		return fmt.Errorf("check the server of the cluster in %s: %w", c.dir, err)
	}
	if !sameDir(reported, c.dataDir()) {
		return fmt.Errorf("the server on port %d that %s leads to serves the data directory %s, not %s: "+
			"that directory's cluster.json or postmaster.pid is not its own, and nothing was changed; "+
			"start the cluster of %s with stackbench db up --dir %s, or name a database with --database-url",
			c.state.Port, c.dir, reported, c.dataDir(), c.dir, c.dir)
	}
	return nil
}

// sameDir reports whether a and b name one directory: the same path once
// cleaned, or the same file where both can be read.
func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}
