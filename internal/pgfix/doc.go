// Package pgfix is stackbench's PostgreSQL fixture: a throwaway or
// persistent cluster made with the machine's own binaries, the saas-slice
// schema and its deterministic seed, and the operations the run protocol
// performs between windows.
//
// Cluster (embedded server):
//
//	c, err := pgfix.Start(ctx, pgfix.Options{})  // temp dir, free port, 127.0.0.1 only
//	pgfix.Start(ctx, pgfix.Options{Listen: "*", Host: addr}) // other hosts too, with the password; URLs name addr
//	defer c.Destroy(ctx)                         // stop; remove the temp dir
//	c.URL("db"), c.AdminURL(), c.PostmasterPID(), c.Settings()
//	pgfix.Attach(dir)                            // a cluster left running by "stackbench db up"
//
// LocateBinaries looks for initdb, pg_ctl and postgres on PATH, then where
// pg_config --bindir says, then in /usr/lib/postgresql/*/bin (newest
// first), Homebrew's prefixes and Postgres.app, and says which it used.
// When stackbench runs as root the server runs as the "postgres" account
// (PostgreSQL refuses root); the cluster directory must then be reachable
// by that account. A cluster directory holds data/ (PGDATA),
// postgres.log (the server's log) and cluster.json (port, superuser
// password, binaries, settings). The server has no Unix socket and uses
// password (SCRAM) authentication for the superuser Superuser.
//
// Seed and copies work on any server's admin URL, embedded or the user's
// own (the role needs CREATEDB; Checkpoint needs superuser or
// pg_checkpoint):
//
//	pgfix.EnsureTemplate(ctx, adminURL)           // "stackbench_template": seeded, verified, then marked
//	url, err := pgfix.FreshDatabase(ctx, adminURL, "run1") // copy of the template
//	pgfix.DropDatabase(ctx, adminURL, "run1"), pgfix.DatabaseExists(ctx, adminURL, "run1")
//	pgfix.Seed(ctx, url)                          // schema + data into an empty database
//	pgfix.Reseed(ctx, url)                        // drop users and orders, then Seed
//
// Every database stackbench makes carries its mark, a comment beginning
// "stackbench" (templates, copies, a database Seed filled). Only a
// marked database is dropped, re-seeded or reset: FreshDatabase,
// DropDatabase and Reseed refuse any other with a *NotOwnedError
// (Reseed also takes a database with no tables), and CheckOwned lets a
// command check before it changes one.
//
// SeedUser returns a single seeded row without a database (for expected
// values in checks).
//
// The seed is the contract's: mulberry32 seeded 20260905, 50,000 users
// then 200,000 orders, loaded with COPY and verified against the
// generated rows (counts, sums, user 4242's createdAt).
//
// Operations between windows, on one connection:
//
//	db, err := pgfix.Open(ctx, url)
//	db.ResetOrders(ctx)  // back to 200,000 orders, next id 200,001, VACUUM (FULL, ANALYZE)
//	db.Checkpoint(ctx)   // CHECKPOINT, returning once the counter shows it
//	db.Stats(ctx)        // checkpoints, orders rows/tuples/size, autovacuum runs, settings
//	db.ServerPIDs(ctx)   // postmaster and children, when the server is on this host
//
// Tests of other packages use the sub-package pgtest.
package pgfix
