package workload

import (
	"crypto/hmac"
	"crypto/sha512"
	"encoding/base64"
)

// signHS512 is SignHS256 with HMAC-SHA512: a well-signed token in an
// algorithm the contract forbids.
func signHS512(headerJSON, claimsJSON, secret string) string {
	enc := base64.RawURLEncoding
	signing := enc.EncodeToString([]byte(headerJSON)) + "." + enc.EncodeToString([]byte(claimsJSON))
	mac := hmac.New(sha512.New, []byte(secret))
	mac.Write([]byte(signing))
	return signing + "." + enc.EncodeToString(mac.Sum(nil))
}
