package saas

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits of the echo and order bodies.
const (
	MaxNameChars = 100
	MaxAge       = 150
	MaxTags      = 10
	// MaxBodyBytes is the largest request body a reference server reads.
	MaxBodyBytes = 1 << 20
)

// EchoBody is a validated echo body; its field order is the order the echo
// answers with. Unknown keys of the request are dropped.
type EchoBody struct {
	Name  string   `json:"name"`
	Email string   `json:"email"`
	Age   int      `json:"age"`
	Tags  []string `json:"tags"`
}

// echoInput is the echo body as sent. Pointers tell a missing or null field
// from a zero value; a field of the wrong JSON type fails decoding.
type echoInput struct {
	Name  *string    `json:"name"`
	Email *string    `json:"email"`
	Age   *float64   `json:"age"`
	Tags  *[]*string `json:"tags"`
}

// validate returns the echo body, or a message saying what is wrong.
func (in echoInput) validate() (EchoBody, string) {
	if in.Name == nil || !validName(*in.Name) {
		return EchoBody{}, "name must be a string of 1 to 100 characters"
	}
	if in.Email == nil || !ValidEmail(*in.Email) {
		return EchoBody{}, "email must be an email address"
	}
	age, ok := integral(in.Age)
	if !ok || age < 0 || age > MaxAge {
		return EchoBody{}, "age must be an integer from 0 to 150"
	}
	if in.Tags == nil || len(*in.Tags) > MaxTags {
		return EchoBody{}, "tags must be an array of at most 10 strings"
	}
	tags := make([]string, len(*in.Tags))
	for i, t := range *in.Tags {
		if t == nil {
			return EchoBody{}, "tags must be an array of at most 10 strings"
		}
		tags[i] = *t
	}
	return EchoBody{Name: *in.Name, Email: *in.Email, Age: int(age), Tags: tags}, ""
}

func validName(s string) bool {
	n := utf8.RuneCountInString(s)
	return n >= 1 && n <= MaxNameChars
}

// integral returns *f as an int64 when it is present and a whole number
// within ±2^53 (JSON numbers such as 30 and 30.0 are both 30, as in
// JavaScript).
func integral(f *float64) (int64, bool) {
	if f == nil || *f != math.Trunc(*f) || math.Abs(*f) > 1<<53 {
		return 0, false
	}
	return int64(*f), true
}

// orderInput is the order body as sent.
type orderInput struct {
	UserID   *float64 `json:"userId"`
	Amount   *float64 `json:"amount"`
	Currency *string  `json:"currency"`
}

// errUnknownUserID marks a userId that is valid but cannot name a row (it
// does not fit the id column), so the order is answered as an unknown user.
const errUnknownUserID = "unknown user"

// validate returns the order to insert, or a message saying what is wrong.
func (in orderInput) validate() (NewOrder, string) {
	id, ok := integral(in.UserID)
	if !ok || id < 1 {
		return NewOrder{}, "userId must be an integer of at least 1"
	}
	if in.Amount == nil {
		return NewOrder{}, "amount must be a number from 0 to less than 10000000000"
	}
	amount, ok := AmountText(*in.Amount)
	if !ok {
		return NewOrder{}, "amount must be a number from 0 to less than 10000000000"
	}
	if in.Currency == nil || !validCurrency(*in.Currency) {
		return NewOrder{}, "currency must be one of USD, EUR, GBP"
	}
	if id > math.MaxInt32 {
		return NewOrder{}, errUnknownUserID
	}
	return NewOrder{UserID: int32(id), Amount: amount, Currency: *in.Currency}, ""
}

func validCurrency(c string) bool { return c == "USD" || c == "EUR" || c == "GBP" }

// maxAmountIntDigits is the number of digits numeric(12,2) keeps before the
// decimal point.
const maxAmountIntDigits = 10

// AmountText returns the amount as numeric(12,2) stores it: the number's
// shortest decimal form (what JavaScript's String(n) gives, and what a
// JavaScript server sends to PostgreSQL) rounded half up to two decimals, as
// PostgreSQL rounds. It fails for a negative or non-finite amount, and for
// one that is 10^10 or more before or after rounding.
func AmountText(f float64) (string, bool) {
	if math.IsNaN(f) || f < 0 || f >= 1e10 {
		return "", false
	}
	if f == 0 {
		f = 0 // -0 is 0
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	if len(frac) <= 2 {
		return intPart + "." + frac + strings.Repeat("0", 2-len(frac)), true
	}
	digits := []byte(intPart + frac[:2])
	if frac[2] >= '5' {
		digits = incrementDecimal(digits)
	}
	n := len(digits)
	if n-2 > maxAmountIntDigits {
		return "", false
	}
	return string(digits[:n-2]) + "." + string(digits[n-2:]), true
}

// incrementDecimal adds one to a string of decimal digits.
func incrementDecimal(d []byte) []byte {
	for i := len(d) - 1; i >= 0; i-- {
		if d[i] < '9' {
			d[i]++
			return d
		}
		d[i] = '0'
	}
	return append([]byte{'1'}, d...)
}

// ValidEmail reports whether s is an email address in the common practical
// sense (the HTML living standard's rule, plus a dot in the domain): a local
// part of letters, digits and !#$%&'*+/=?^_`{|}~.- ; one @; a domain of at
// least two dot-separated labels of letters, digits and inner hyphens, each
// at most 63 characters.
func ValidEmail(s string) bool {
	local, domain, ok := strings.Cut(s, "@")
	if !ok || local == "" || len(local) > 64 || len(s) > 254 {
		return false
	}
	for i := 0; i < len(local); i++ {
		if !isAlnum(local[i]) && !strings.ContainsRune("!#$%&'*+/=?^_`{|}~.-", rune(local[i])) {
			return false
		}
	}
	labels := strings.Split(domain, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if !validLabel(l) {
			return false
		}
	}
	return true
}

func validLabel(l string) bool {
	if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		if !isAlnum(l[i]) && l[i] != '-' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
