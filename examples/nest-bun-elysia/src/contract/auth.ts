// Bearer-token authentication for GET /me with jose: HS256 only, exp and nbf
// checked with no leeway, sub a user id (decimal digits, 1 to 2^31-1).
import { jwtVerify } from 'jose'
import { decimalIn, int32Max } from './rules.js'

const bearer = 'Bearer '

// verifier returns a function that maps an Authorization header to the user id
// in its token's sub claim, or undefined when the request is unauthorized.
export function verifier(secret: string): (header: unknown) => Promise<number | undefined> {
  const key = new TextEncoder().encode(secret)
  const options = { algorithms: ['HS256'] }
  return async (header) => {
    if (typeof header !== 'string' || !header.startsWith(bearer)) return undefined
    try {
      const { payload } = await jwtVerify(header.slice(bearer.length), key, options)
      return decimalIn(payload.sub, 1, int32Max)
    } catch {
      return undefined // malformed, wrong signature or algorithm, expired, not yet valid
    }
  }
}
