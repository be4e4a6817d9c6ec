package saas

import (
	"errors"
	"time"
)

// User is a row of the users table as the API shows it; the field order is
// the contract's key order.
type User struct {
	ID        int32  `json:"id"`
	Name      string `json:"name"`
	Email     string `json:"email"`
	Age       int32  `json:"age"`
	CreatedAt string `json:"createdAt"` // FormatTime of created_at
}

// Order is a row of the orders table as the API shows it; the field order
// is the contract's key order.
type Order struct {
	ID        int32  `json:"id"`
	UserID    int32  `json:"userId"`
	Amount    string `json:"amount"` // numeric(12,2) as text, e.g. "19.99"
	Currency  string `json:"currency"`
	CreatedAt string `json:"createdAt"` // FormatTime of created_at
}

// NewOrder is a validated order to insert.
type NewOrder struct {
	UserID   int32
	Amount   string // exactly two decimals, fits numeric(12,2)
	Currency string
}

// ErrNotFound is returned by Store.UserByID when no user has the id.
var ErrNotFound = errors.New("not found")

// ErrUnknownUser is returned by Store.InsertOrder when the order's user does
// not exist (the foreign key rejected it).
var ErrUnknownUser = errors.New("unknown user")

// timeLayout is ISO 8601 in UTC with milliseconds, as JavaScript's
// Date.prototype.toISOString writes it.
const timeLayout = "2006-01-02T15:04:05.000Z"

// FormatTime formats a timestamp as the API shows it: UTC, milliseconds
// (truncated), and a Z, e.g. 2023-11-14T23:24:01.000Z.
func FormatTime(t time.Time) string {
	return t.UTC().Format(timeLayout)
}
