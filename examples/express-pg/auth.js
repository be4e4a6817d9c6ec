// Bearer-token authentication for GET /me: HS256 only, exp and nbf checked,
// sub a user id (decimal digits, 1 to 2^31-1).
import { createSecretKey } from 'node:crypto'
import jwt from 'jsonwebtoken'
import { decimalIn, int32Max } from './rules.js'

const bearer = 'Bearer '

// verifier returns a function that maps an Authorization header to the user id
// in its token's sub claim, or undefined when the request is unauthorized.
export function verifier(secret) {
  const key = createSecretKey(Buffer.from(secret, 'utf8'))
  const options = { algorithms: ['HS256'] }
  return (header) => {
    if (typeof header !== 'string' || !header.startsWith(bearer)) return undefined
    let claims
    try {
      claims = jwt.verify(header.slice(bearer.length), key, options)
    } catch {
      return undefined // malformed, wrong signature or algorithm, expired, not yet valid
    }
    return decimalIn(claims?.sub, 1, int32Max)
  }
}
