"""A TechEmpower-style entry on Python: the standard library's threading
HTTP server and Debian's psycopg2. It listens on $PORT (8080 when unset)
and connects with libpq's defaults, the PGHOST, PGPORT, PGDATABASE, PGUSER
and PGPASSWORD variables stackbench sets for the tfb workload. Reads are
one statement per row; updates write in one executemany (one statement
per row, one round trip each)."""

import html
import json
import os
import random
import signal
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from psycopg2.pool import ThreadedConnectionPool

WORLD_ROWS = 10000
POOL_SIZE = 10
# minconn = maxconn: psycopg2's pool closes a connection returned to it
# beyond minconn, and a new one costs a backend and an authentication.
pool = ThreadedConnectionPool(POOL_SIZE, POOL_SIZE, "")  # "": every setting from PG* variables
# psycopg2's pool raises when it is empty instead of waiting: requests
# beyond POOL_SIZE wait here for a connection.
pool_slots = threading.BoundedSemaphore(POOL_SIZE)


def count(query, name):
    try:
        n = int(parse_qs(query).get(name, [""])[0])
    except ValueError:
        return 1
    return min(max(n, 1), 500)


def random_id():
    return random.randint(1, WORLD_ROWS)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "python-psycopg"
    # Headers and body go out in two writes: without TCP_NODELAY the body
    # waits for the client's delayed ACK (40 ms on Linux) on every answer.
    disable_nagle_algorithm = True

    def log_message(self, format, *args):  # no per-request logging
        pass

    def send(self, content_type, body):
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def json(self, value):
        self.send("application/json", dumps(value))

    def do_GET(self):
        url = urlsplit(self.path)
        if url.path == "/json":
            return self.json({"message": "Hello, World!"})
        if url.path == "/plaintext":
            return self.send("text/plain", b"Hello, World!")
        with pool_slots:
            answer = query(url)
        if answer is None:
            self.send_error(404)
        else:
            self.send(*answer)


def query(url):
    """The content type and body of a database route, None for an unknown
    path; the answer is made after the commit, so a client that reads the
    table back sees what it was told."""
    conn = pool.getconn()
    try:
        with conn.cursor() as cur:
            if url.path == "/db":
                answer = "application/json", dumps(read_worlds(cur, 1)[0])
            elif url.path == "/queries":
                answer = "application/json", dumps(read_worlds(cur, count(url.query, "queries")))
            elif url.path == "/updates":
                answer = "application/json", dumps(update_worlds(cur, count(url.query, "queries")))
            elif url.path == "/fortunes":
                answer = "text/html; charset=utf-8", fortunes(cur).encode()
            else:
                answer = None
        conn.commit()
    finally:
        pool.putconn(conn)
    return answer


def dumps(value):
    return json.dumps(value, separators=(",", ":")).encode()


def read_worlds(cur, n):
    out = []
    for _ in range(n):
        cur.execute("SELECT id, randomnumber FROM world WHERE id = %s", (random_id(),))
        row = cur.fetchone()
        out.append({"id": row[0], "randomNumber": row[1]})
    return out


def update_worlds(cur, n):
    worlds = read_worlds(cur, n)
    for w in worlds:
        w["randomNumber"] = random_id()
    # Sorted by id, so concurrent requests lock rows in one order.
    cur.executemany("UPDATE world SET randomnumber = %s WHERE id = %s",
                    sorted(((w["randomNumber"], w["id"]) for w in worlds), key=lambda p: p[1]))
    # A repeated id keeps the last number written for it.
    last = {}
    for number, id_ in sorted(((w["randomNumber"], w["id"]) for w in worlds), key=lambda p: p[1]):
        last[id_] = number
    for w in worlds:
        w["randomNumber"] = last[w["id"]]
    return worlds


def fortunes(cur):
    cur.execute("SELECT id, message FROM fortune")
    rows = cur.fetchall()
    rows.append((0, "Additional fortune added at request time."))
    rows.sort(key=lambda r: r[1])
    cells = "".join(f"<tr><td>{i}</td><td>{html.escape(m)}</td></tr>" for i, m in rows)
    return ("<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table>"
            f"<tr><th>id</th><th>message</th></tr>{cells}</table></body></html>")


def main():
    server = ThreadingHTTPServer((os.environ.get("HOST", "127.0.0.1"), int(os.environ.get("PORT", "8080"))), Handler)
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    server.serve_forever()


if __name__ == "__main__":
    main()
