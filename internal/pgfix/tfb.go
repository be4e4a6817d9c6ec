package pgfix

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// The database of the tfb workload: what TechEmpower Framework Benchmarks
// entries expect to find (docs/workloads.md, "tfb").
const (
	// TFBWorldRows is the number of World rows, ids 1…TFBWorldRows, each
	// with a randomNumber in 1…TFBWorldRows.
	TFBWorldRows = 10000
	// TFBDatabase, TFBUser and TFBPassword are the database name, role and
	// password TFB entries hard-code in their connection strings.
	TFBDatabase = "hello_world"
	TFBUser     = "benchmarkdbuser"
	TFBPassword = "benchmarkdbpass"
	// TFBHost is the host name TFB entries dial for their database.
	TFBHost = "tfb-database"
	// tfbSeedPRNG seeds the World numbers.
	tfbSeedPRNG = 20261206
	// tfbFixtureVersion changes whenever the schema or seed below does, so
	// older templates are rebuilt.
	tfbFixtureVersion = "tfb-v1"
)

// Fortune is one row of the Fortune table.
type Fortune struct {
	ID      int
	Message string
}

// TFBFortunes are the 12 rows of the Fortune table TFB's verifier expects:
// row 11 holds markup that a correct page escapes, row 12 non-ASCII text.
var TFBFortunes = []Fortune{
	{1, "fortune: No such file or directory"},
	{2, "A computer scientist is someone who fixes things that aren't broken."},
	{3, "After enough decimal places, nobody gives a damn."},
	{4, "A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1"},
	{5, "A computer program does what you tell it to do, not what you want it to do."},
	{6, "Emacs is a nice operating system, but I prefer UNIX. — Tom Christaensen"},
	{7, "Any program that runs right is obsolete."},
	{8, "A list is only as strong as its weakest link. — Donald Knuth"},
	{9, "Feature: A bug with seniority."},
	{10, "Computers make very fast, very accurate mistakes."},
	{11, `<script>alert("This should not be displayed in a browser alert box.");</script>`},
	{12, "フレームワークのベンチマーク"},
}

// TFBWorldNumbers returns the seeded randomNumber of every World row,
// index id-1: mulberry32 seeded tfbSeedPRNG, 1 + floor(draw × 10,000).
func TFBWorldNumbers() []int {
	g := mulberry32{state: tfbSeedPRNG}
	out := make([]int, TFBWorldRows)
	for i := range out {
		out[i] = 1 + int(g.draw()*TFBWorldRows)
	}
	return out
}

// TFBTables are the tables of the tfb fixture in both name forms TFB
// creates: unquoted (folded to lower case, for case-insensitive ORMs) and
// quoted with capitals (for ORMs that quote their identifiers).
var TFBTables = []struct{ World, RandomNumber, Fortune string }{
	{World: "world", RandomNumber: "randomnumber", Fortune: "fortune"},
	{World: "World", RandomNumber: "randomNumber", Fortune: "Fortune"},
}

// TFBFixture is the tfb workload's database as a Fixture: both name forms
// of World and Fortune, seeded, and the role TFB entries log in as. A
// window of the updates case is preceded by Reset, which vacuums World
// (updates leave a dead tuple per row written; trap T3).
func TFBFixture() Fixture {
	var reset []string
	for _, t := range TFBTables {
		reset = append(reset, "VACUUM (FULL, ANALYZE) "+pgx.Identifier{t.World}.Sanitize())
	}
	return Fixture{Name: "tfb", Hash: tfbFixtureVersion, Build: SeedTFB, Reset: reset}
}

// SeedTFB creates and fills the tfb tables in the empty database at url,
// creates the role TFBUser (password TFBPassword) on the server when it
// is missing, grants it the tables, and verifies the rows.
func SeedTFB(ctx context.Context, url string) error {
	conn, err := connect(ctx, url)
	if err != nil {
		return fmt.Errorf("seed tfb: %w", err)
	}
	defer conn.Close(context.Background())
	if err := ensureTFBRole(ctx, conn); err != nil {
		return err
	}
	numbers := TFBWorldNumbers()
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("seed tfb: %w", err)
	}
	defer tx.Rollback(context.Background())
	for _, t := range TFBTables {
		if err := seedTFBTables(ctx, tx, t.World, t.RandomNumber, t.Fortune, numbers); err != nil {
			return fmt.Errorf("seed tfb: %w", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("seed tfb: %w", err)
	}
	if _, err := conn.Exec(ctx, `VACUUM (ANALYZE) world, "World", fortune, "Fortune"`); err != nil {
		return fmt.Errorf("seed tfb: vacuum: %w", err)
	}
	return verifyTFB(ctx, conn, numbers)
}

// ensureTFBRole creates the login role TFB entries use, unless the server
// has it.
func ensureTFBRole(ctx context.Context, conn *pgx.Conn) error {
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)", TFBUser).Scan(&exists); err != nil {
		return fmt.Errorf("seed tfb: %w", err)
	}
	if exists {
		return nil
	}
	_, err := conn.Exec(ctx, fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s'", pgx.Identifier{TFBUser}.Sanitize(), TFBPassword))
	if err != nil {
		return fmt.Errorf("seed tfb: create role %s: %w; create it yourself (CREATE ROLE %s LOGIN PASSWORD '%s') or give the database URL's role CREATEROLE",
			TFBUser, err, TFBUser, TFBPassword)
	}
	return nil
}

func seedTFBTables(ctx context.Context, tx pgx.Tx, world, randomNumber, fortune string, numbers []int) error {
	w, rn, f := pgx.Identifier{world}.Sanitize(), pgx.Identifier{randomNumber}.Sanitize(), pgx.Identifier{fortune}.Sanitize()
	user := pgx.Identifier{TFBUser}.Sanitize()
	ddl := fmt.Sprintf(`CREATE TABLE %[1]s (id integer NOT NULL PRIMARY KEY, %[2]s integer NOT NULL DEFAULT 0);
CREATE TABLE %[3]s (id integer NOT NULL PRIMARY KEY, message varchar(2048) NOT NULL);
GRANT SELECT, UPDATE ON %[1]s, %[3]s TO %[4]s`, w, rn, f, user)
	if _, err := tx.Exec(ctx, ddl); err != nil {
		return fmt.Errorf("create %s and %s: %w", world, fortune, err)
	}
	id := 0
	n, err := tx.CopyFrom(ctx, pgx.Identifier{world}, []string{"id", randomNumber}, pgx.CopyFromFunc(func() ([]any, error) {
		if id == len(numbers) {
			return nil, nil
		}
		id++
		return []any{int32(id), int32(numbers[id-1])}, nil
	}))
	if err != nil || n != int64(len(numbers)) {
		return fmt.Errorf("copy %s (%d rows): %v", world, n, err)
	}
	rows := make([][]any, len(TFBFortunes))
	for i, ft := range TFBFortunes {
		rows[i] = []any{int32(ft.ID), ft.Message}
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{fortune}, []string{"id", "message"}, pgx.CopyFromRows(rows)); err != nil {
		return fmt.Errorf("copy %s: %w", fortune, err)
	}
	return nil
}

// verifyTFB compares each form's rows with the generated ones: the World
// count and sum, and the Fortune messages.
func verifyTFB(ctx context.Context, conn *pgx.Conn, numbers []int) error {
	var want int64
	for _, n := range numbers {
		want += int64(n)
	}
	var wantMessages []string
	for _, f := range TFBFortunes {
		wantMessages = append(wantMessages, f.Message)
	}
	for _, t := range TFBTables {
		var count, sum int64
		var messages []string
		q := fmt.Sprintf("SELECT (SELECT count(*) FROM %[1]s), (SELECT sum(%[2]s) FROM %[1]s), (SELECT array_agg(message ORDER BY id) FROM %[3]s)",
			pgx.Identifier{t.World}.Sanitize(), pgx.Identifier{t.RandomNumber}.Sanitize(), pgx.Identifier{t.Fortune}.Sanitize())
		if err := conn.QueryRow(ctx, q).Scan(&count, &sum, &messages); err != nil {
			return fmt.Errorf("verify tfb seed: %w", err)
		}
		if count != TFBWorldRows || sum != want {
			return fmt.Errorf("verify tfb seed: %s has %d rows summing to %d, want %d summing to %d", t.World, count, sum, TFBWorldRows, want)
		}
		if strings.Join(messages, "\n") != strings.Join(wantMessages, "\n") {
			return fmt.Errorf("verify tfb seed: %s holds other messages than the 12 fortunes", t.Fortune)
		}
	}
	return nil
}
