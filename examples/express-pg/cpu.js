// The cpu case: a chain of SHA-256 digests over their own lowercase hex form.
import { createHash, hash } from 'node:crypto'

// crypto.hash (Node 20.12+) is the one-shot form; createHash is the fallback.
const sha256Hex = typeof hash === 'function'
  ? (s) => hash('sha256', s, 'hex')
  : (s) => createHash('sha256').update(s).digest('hex')

// hashChain starts from "elysia-vs-nest" and replaces the string n times with
// the hex SHA-256 digest of its bytes.
export function hashChain(n) {
  let s = 'elysia-vs-nest'
  for (let i = 0; i < n; i++) s = sha256Hex(s)
  return s
}
