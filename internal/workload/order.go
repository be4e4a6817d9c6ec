package workload

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// orderKeys are the order object's keys in the contract's order.
var orderKeys = []string{"id", "userId", "amount", "currency", "createdAt"}

var apiTimeRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

// clockSlack is how far an order's createdAt may lie outside the time the
// checks ran (the database and the checker share a clock on one machine).
const clockSlack = time.Minute

// judgeOrder checks a 201 body as a new order and that the order is stored.
// It sets cr.comparable to the body with id and createdAt blanked.
func (r *runner) judgeOrder(want OrderExpect, cr *CheckResult) string {
	keys, vals, err := objectFields(cr.Body)
	if err != nil {
		return "body is not a JSON object: " + err.Error()
	}
	if !slices.Equal(keys, orderKeys) {
		return fmt.Sprintf("keys are %s, want %s in this order", strings.Join(keys, ","), strings.Join(orderKeys, ","))
	}
	cr.comparable = blankVolatile(keys, vals)
	id, err := strconv.ParseInt(string(vals["id"]), 10, 32)
	if err != nil || id < 1 {
		return fmt.Sprintf("id is %s, want a positive integer", vals["id"])
	}
	for _, f := range []struct{ key, want string }{
		{"userId", strconv.Itoa(want.UserID)},
		{"amount", strconv.Quote(want.Amount)},
		{"currency", strconv.Quote(want.Currency)},
	} {
		if got := string(vals[f.key]); got != f.want {
			return fmt.Sprintf("%s is %s, want %s", f.key, got, f.want)
		}
	}
	var created string
	if json.Unmarshal(vals["createdAt"], &created) != nil || !apiTimeRE.MatchString(created) {
		return fmt.Sprintf("createdAt is %s, want an ISO 8601 UTC time with milliseconds like \"2023-11-14T23:24:01.000Z\"", vals["createdAt"])
	}
	at, _ := time.Parse(apiTimeLayout, created)
	if at.Before(r.start.Add(-clockSlack)) || at.After(time.Now().Add(clockSlack)) {
		return fmt.Sprintf("createdAt is %s, want the time of insertion (about %s)", created, time.Now().UTC().Format(apiTimeLayout))
	}
	return r.judgeStored(int32(id), want, at)
}

// judgeStored checks that order id is in the orders table as answered.
func (r *runner) judgeStored(id int32, want OrderExpect, createdAt time.Time) string {
	db, err := r.database()
	if err != nil {
		return "cannot check that the order is stored: " + err.Error()
	}
	row, err := db.order(r.ctx, id)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Sprintf("order %d is not in the orders table", id)
	}
	if err != nil {
		return fmt.Sprintf("cannot read order %d back: %v", id, err)
	}
	if row.UserID != want.UserID || row.Amount != want.Amount || row.Currency != want.Currency {
		return fmt.Sprintf("order %d is stored as user_id %d, amount %s, currency %s; want %d, %s, %s",
			id, row.UserID, row.Amount, row.Currency, want.UserID, want.Amount, want.Currency)
	}
	// JavaScript drivers may round the microseconds into the millisecond
	// either way, so allow one millisecond.
	if d := row.CreatedAt.Sub(createdAt); d < -time.Millisecond || d >= 2*time.Millisecond {
		return fmt.Sprintf("createdAt is %s but the row says %s", createdAt.Format(apiTimeLayout), row.CreatedAt.UTC().Format("2006-01-02T15:04:05.000000Z"))
	}
	return ""
}

// storedOrdersCheck is the last check of a workload with order checks
// (saas-slice): the orders table grew by exactly the orders answered 201, so
// no rejected order was stored and none answered 201 is missing.
func (r *runner) storedOrdersCheck() CheckResult {
	cr := CheckResult{Check: "order/only-created-orders-stored", Case: "order",
		Sent:     "SELECT count(*) FROM orders, before and after the checks",
		Expected: fmt.Sprintf("%d more rows (the orders answered 201)", r.created)}
	after, err := r.countOrders()
	if r.ordersErr != nil || err != nil {
		cr.Problem = "cannot count orders: " + errors.Join(r.ordersErr, err).Error()
		return cr
	}
	cr.Got = fmt.Sprintf("%d more rows", after-r.ordersBefore)
	switch grew := after - r.ordersBefore; {
	case grew > r.created:
		cr.Problem = fmt.Sprintf("the orders table grew by %d rows, but %d orders were answered 201: a rejected order was stored",
			grew, r.created)
	case grew < r.created:
		cr.Problem = fmt.Sprintf("the orders table grew by %d rows, but %d orders were answered 201: an order answered 201 is not stored",
			grew, r.created)
	}
	return cr
}

func (r *runner) countOrders() (int64, error) {
	db, err := r.database()
	if err != nil {
		return 0, err
	}
	return db.countOrders(r.ctx)
}

func (r *runner) database() (*orderDB, error) {
	if r.db != nil {
		return r.db, nil
	}
	if r.opt.DatabaseURL == "" {
		return nil, errors.New("no database URL was given to the checks")
	}
	conn, err := pgx.Connect(r.ctx, r.opt.DatabaseURL)
	if err != nil {
		return nil, fmt.Errorf("connect to the stack's database: %w", err)
	}
	r.db = &orderDB{conn: conn}
	return r.db, nil
}

func (r *runner) closeDB() {
	if r.db != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		r.db.conn.Close(ctx)
	}
}

// orderDB reads the orders table for the checks.
type orderDB struct{ conn *pgx.Conn }

type storedOrder struct {
	UserID    int
	Amount    string
	Currency  string
	CreatedAt time.Time
}

func (d *orderDB) order(ctx context.Context, id int32) (storedOrder, error) {
	var o storedOrder
	err := d.conn.QueryRow(ctx, `SELECT user_id, amount::text, currency, created_at FROM orders WHERE id = $1`, id).
		Scan(&o.UserID, &o.Amount, &o.Currency, &o.CreatedAt)
	return o, err
}

func (d *orderDB) countOrders(ctx context.Context) (int64, error) {
	var n int64
	err := d.conn.QueryRow(ctx, `SELECT count(*) FROM orders`).Scan(&n)
	return n, err
}

// objectFields decodes a JSON object into its keys, in order, and their raw
// values.
func objectFields(body []byte) ([]string, map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, errors.New("it does not start with {")
	}
	var keys []string
	vals := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		key := t.(string) // object keys are always strings
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		if _, dup := vals[key]; dup {
			return nil, nil, fmt.Errorf("key %q appears twice", key)
		}
		keys = append(keys, key)
		vals[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, errors.New("data after the object")
	}
	return keys, vals, nil
}

// blankVolatile rebuilds an order object with id 0 and createdAt "", the
// two values that legitimately differ between stacks.
func blankVolatile(keys []string, vals map[string]json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(k) + ":")
		switch k {
		case "id":
			b.WriteString("0")
		case "createdAt":
			b.WriteString(`""`)
		default:
			b.Write(vals[k])
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}
