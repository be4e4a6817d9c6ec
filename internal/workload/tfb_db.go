package workload

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/stackbench/stackbench/internal/pgfix"
)

// worldNumbers reads the randomNumber of each id from both name forms of
// World (pgfix.TFBTables): a stack reads and writes one of them.
func (r *runner) worldNumbers(ids []int64) (map[int64][]int64, error) {
	db, err := r.database()
	if err != nil {
		return nil, err
	}
	out := map[int64][]int64{}
	for _, t := range pgfix.TFBTables {
		q := fmt.Sprintf("SELECT id, %s FROM %s WHERE id = ANY($1)",
			pgx.Identifier{t.RandomNumber}.Sanitize(), pgx.Identifier{t.World}.Sanitize())
		rows, err := db.conn.Query(r.ctx, q, ids)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id, n int64
			if err := rows.Scan(&id, &n); err != nil {
				rows.Close()
				return nil, err
			}
			out[id] = append(out[id], n)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// tfbMatchesDatabase checks that each object answered is World's row
// (stricter than TFB, which checks ranges only): a stack that makes up
// numbers fails.
func (r *runner) tfbMatchesDatabase(ws []world, add func(rule, format string, a ...any)) {
	r.tfbCompareRows(ws, "tfb.world-matches-database", "the row holds", add)
}

// tfbPersisted checks that each object an updates request answered is
// what World now holds (TFB's verifier reads the table back too).
func (r *runner) tfbPersisted(ws []world, add func(rule, format string, a ...any)) {
	r.tfbCompareRows(ws, "tfb.updates-persisted", "the table still holds", add)
}

func (r *runner) tfbCompareRows(ws []world, rule, holds string, add func(rule, format string, a ...any)) {
	ids := make([]int64, len(ws))
	answered := map[int64][]int64{}
	for i, w := range ws {
		ids[i] = w.ID
		answered[w.ID] = append(answered[w.ID], w.RandomNumber)
	}
	stored, err := r.worldNumbers(ids)
	if err != nil {
		add(rule, "cannot read World back: %v", err)
		return
	}
	bad, first := 0, ""
	for _, w := range ws {
		// A repeated id may have been written more than once: any of the
		// numbers answered for it will do. Either name form of the table
		// may be the one the stack uses.
		ok := slices.ContainsFunc(stored[w.ID], func(n int64) bool { return slices.Contains(answered[w.ID], n) })
		if !ok {
			if bad == 0 {
				first = fmt.Sprintf("id %d answered randomNumber %d, %s %v", w.ID, w.RandomNumber, holds, stored[w.ID])
			}
			bad++
		}
	}
	if bad > 0 {
		add(rule, "%d of %d objects differ from World: %s", bad, len(ws), first)
	}
}

// resetTFBStatements empties pg_stat_statements' counts for the stack's
// database, just before a request whose statements are counted.
func (r *runner) resetTFBStatements() error {
	db, err := r.database()
	if err != nil {
		return err
	}
	var loaded string
	if err := db.conn.QueryRow(r.ctx, "SELECT current_setting('shared_preload_libraries')").Scan(&loaded); err != nil {
		return err
	}
	if !strings.Contains(loaded, "pg_stat_statements") {
		return fmt.Errorf("the server does not load pg_stat_statements; add shared_preload_libraries = 'pg_stat_statements' to its postgresql.conf and restart it (the embedded database does when PostgreSQL's contrib modules are installed)")
	}
	if _, err := db.conn.Exec(r.ctx, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"); err != nil {
		return err
	}
	_, err = db.conn.Exec(r.ctx, "SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = current_database()), 0)")
	return err
}

// worldStatements are the statements on World since the reset: reads
// (SELECT) and writes (anything that updates it), each with its calls
// and rows.
type worldStatements struct {
	readCalls, readRows, writeCalls, writeRows int64
}

func (r *runner) readWorldStatements() (worldStatements, error) {
	var s worldStatements
	db, err := r.database()
	if err != nil {
		return s, err
	}
	rows, err := db.conn.Query(r.ctx, `SELECT query, calls, rows FROM pg_stat_statements
		WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
		  AND query NOT LIKE '%pg_stat_statements%'`)
	if err != nil {
		return s, err
	}
	defer rows.Close()
	for rows.Next() {
		var q string
		var calls, n int64
		if err := rows.Scan(&q, &calls, &n); err != nil {
			return s, err
		}
		lq := strings.ToLower(q)
		if !strings.Contains(lq, "world") {
			continue
		}
		if strings.Contains(lq, "update") {
			s.writeCalls += calls
			s.writeRows += n
		} else if strings.HasPrefix(strings.TrimSpace(lq), "select") {
			s.readCalls += calls
			s.readRows += n
		}
	}
	return s, rows.Err()
}

// tfbStatements checks the statements one request caused: as many single-
// row reads of World as rows answered (never one IN or ANY query for all),
// and for updates at least one write. It returns a note saying how the
// writes went: one by one or batched (both allowed, as TFB allowed).
func (r *runner) tfbStatements(t TFBRule, add func(rule, format string, a ...any)) string {
	if r.statementsErr != nil {
		add("tfb.statements", "cannot count statements: %v", r.statementsErr)
		return ""
	}
	s, err := r.readWorldStatements()
	if err != nil {
		add("tfb.statements", "cannot read pg_stat_statements: %v", err)
		return ""
	}
	rule := "tfb.queries-one-read-per-row"
	if t.Kind == TFBUpdates {
		rule = "tfb.updates-one-read-per-row"
	}
	want := int64(t.Rows)
	if s.readCalls != want || s.readRows != want {
		add(rule, "%d World rows read with %d SELECT statements, want %d statements of one row each (one IN or ANY query for all rows breaks the rule)",
			s.readRows, s.readCalls, want)
	}
	note := fmt.Sprintf("statements: %d reads of %d rows", s.readCalls, s.readRows)
	if t.Kind != TFBUpdates {
		return note
	}
	switch {
	case s.writeCalls == 0:
		add("tfb.updates-written", "no UPDATE of World was counted for the request")
	case s.writeCalls >= want:
		note += fmt.Sprintf("; writes one by one: %d UPDATEs of %d rows", s.writeCalls, s.writeRows)
	default:
		// Allowed, as TFB allowed it: a relaxed rule (TFBRelaxedByDefault),
		// which the report shows beside the stack's steps.
		note += fmt.Sprintf("; writes batched: %d UPDATE statements for %d rows", s.writeCalls, s.writeRows)
		add(TFBRuleOneWritePerRow, "%d rows written with %d UPDATE statements (batched, as TFB allowed)", s.writeRows, s.writeCalls)
	}
	return note
}
