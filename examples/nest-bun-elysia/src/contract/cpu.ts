// The cpu case: a chain of SHA-256 digests over their own lowercase hex form,
// through node:crypto on both runtimes (Bun implements it natively).
import { createHash } from 'node:crypto'

// hashChain starts from "elysia-vs-nest" and replaces the string n times with
// the hex SHA-256 digest of its bytes.
export function hashChain(n: number): string {
  let s = 'elysia-vs-nest'
  for (let i = 0; i < n; i++) s = createHash('sha256').update(s).digest('hex')
  return s
}
