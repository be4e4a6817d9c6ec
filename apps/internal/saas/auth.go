package saas

import (
	"strings"

	"github.com/golang-jwt/jwt/v5"
)

// bearerPrefix is the only accepted scheme prefix: case-sensitive, one space.
const bearerPrefix = "Bearer "

// Authenticator checks the me route's bearer tokens: HS256 only, keyed with
// the UTF-8 bytes of the secret, exp and nbf enforced when present (no
// leeway), and a sub that is a user id (see ParseID).
type Authenticator struct {
	parser *jwt.Parser
	key    []byte
}

// NewAuthenticator returns an Authenticator for tokens signed with secret.
func NewAuthenticator(secret string) *Authenticator {
	return &Authenticator{
		parser: jwt.NewParser(jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()})),
		key:    []byte(secret),
	}
}

// UserID returns the user id of the Authorization header's token, or false
// when the request is not authenticated.
func (a *Authenticator) UserID(authorization string) (int32, bool) {
	token, ok := strings.CutPrefix(authorization, bearerPrefix)
	if !ok {
		return 0, false
	}
	var claims jwt.RegisteredClaims
	_, err := a.parser.ParseWithClaims(token, &claims, a.keyFunc)
	if err != nil {
		return 0, false
	}
	return ParseID(claims.Subject)
}

func (a *Authenticator) keyFunc(*jwt.Token) (any, error) { return a.key, nil }
