"""The SaaS-slice contract in Python: input rules, the JWT check, the cpu
chain and the exact JSON bytes of every answer. The same rules as the
JavaScript examples (examples/express-pg/rules.js), written for Python's types:
a JSON true is not the integer 1, and NaN or Infinity are not JSON."""

import hashlib
import json
import re

import jwt
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpResponse

INT32_MAX = 2147483647
INT64_MAX = 9223372036854775807

_digits = re.compile(r"[0-9]+")
# A pragmatic address check: at most 254 characters; a local part of at most
# 64; "@"; a host name of at least two dot-separated labels.
_email = re.compile(
    r"(?=.{1,254}\Z)[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+",
    re.ASCII,
)
_currencies = ("USD", "EUR", "GBP")


class BadRequest(Exception):
    """BadRequest is a client error answered with its status and {"error": message}."""

    def __init__(self, message, status=400):
        super().__init__(message)
        self.status = status


def respond(obj, status=200):
    """respond writes obj as compact JSON (no spaces, UTF-8 as is), the bytes
    the Go reference server writes."""
    try:
        body = json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: escape it, as JSON.stringify does
        body = json.dumps(obj, separators=(",", ":")).encode("ascii")
    return HttpResponse(body, status=status, content_type="application/json")


def error(status, message):
    return respond({"error": message}, status)


def _no_constant(name):
    raise ValueError(f"{name} is not JSON")


def json_body(request):
    """json_body parses the request body; malformed JSON is a 400, a body
    over 1 MiB a 413."""
    try:
        raw = request.body
    except RequestDataTooBig:
        raise BadRequest("body larger than 1 MiB", 413)
    try:
        return json.loads(raw, parse_constant=_no_constant)
    except (ValueError, UnicodeDecodeError):
        raise BadRequest("body must be JSON")


def decimal_in(s, lo, hi):
    """decimal_in parses a string of decimal digits whose value lies in [lo, hi];
    anything else (signs, spaces, fractions) is None."""
    if not isinstance(s, str) or not s.isascii() or not _digits.fullmatch(s):
        return None
    n = int(s)
    return n if lo <= n <= hi else None


def _query_value(query, key):
    """A query parameter: its first value when repeated, '' when absent."""
    values = query.getlist(key)
    return values[0] if values else ""


def paging(query):
    """paging reads ?page=&limit= with the contract's defaults (1 and 20)."""
    page_text, limit_text = _query_value(query, "page"), _query_value(query, "limit")
    page = 1 if page_text == "" else decimal_in(page_text, 1, INT64_MAX)
    limit = 20 if limit_text == "" else decimal_in(limit_text, 1, 100)
    if page is None or limit is None:
        raise BadRequest("page must be an integer of at least 1 and limit an integer from 1 to 100")
    return page, limit


def cpu_rounds(query):
    """cpu_rounds reads the required ?n= (1 to 1,000,000)."""
    n = decimal_in(_query_value(query, "n"), 1, 1_000_000)
    if n is None:
        raise BadRequest("n must be an integer from 1 to 1000000")
    return n


def _integer(v):
    """_integer is v as an int when it is a JSON integer (30 or 30.0), else None."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return None


def echo_body(body):
    """echo_body validates POST /echo and keeps only the four known keys, in order."""
    if not isinstance(body, dict):
        raise BadRequest("body must be a JSON object")
    name, email, tags = body.get("name"), body.get("email"), body.get("tags")
    age = _integer(body.get("age"))
    if not isinstance(name, str) or not 1 <= len(name) <= 100:
        raise BadRequest("name must be a string of 1 to 100 characters")
    if not isinstance(email, str) or not _email.fullmatch(email):
        raise BadRequest("email must be an email address")
    if age is None or not 0 <= age <= 150:
        raise BadRequest("age must be an integer from 0 to 150")
    if not isinstance(tags, list) or len(tags) > 10 or not all(isinstance(t, str) for t in tags):
        raise BadRequest("tags must be an array of at most 10 strings")
    return {"name": name, "email": email, "age": age, "tags": tags}


def order_body(body):
    """order_body validates POST /orders and returns (userId, amount, currency)."""
    if not isinstance(body, dict):
        raise BadRequest("body must be a JSON object")
    user_id, amount, currency = _integer(body.get("userId")), body.get("amount"), body.get("currency")
    if user_id is None or user_id < 1:
        raise BadRequest("userId must be an integer >= 1")
    if isinstance(amount, bool) or not isinstance(amount, (int, float)) or not 0 <= amount < 1e10:
        raise BadRequest("amount must be a number >= 0 and < 10^10")
    if not isinstance(currency, str) or currency not in _currencies:
        raise BadRequest("currency must be one of USD, EUR, GBP")
    return user_id, amount, currency


_bearer = "Bearer "


def user_id_of(authorization):
    """user_id_of maps an Authorization header to the user id in its token's sub
    claim (PyJWT, HS256 only, exp and nbf checked with no leeway), or None when
    the request is unauthorized."""
    if not isinstance(authorization, str) or not authorization.startswith(_bearer):
        return None
    try:
        claims = jwt.decode(authorization[len(_bearer):], settings.JWT_SECRET, algorithms=["HS256"])
    except jwt.InvalidTokenError:
        return None
    return decimal_in(claims.get("sub"), 1, INT32_MAX)


def hash_chain(n):
    """hash_chain starts from "elysia-vs-nest" and replaces the string n times
    with the hex SHA-256 digest of its bytes."""
    s = "elysia-vs-nest"
    sha256 = hashlib.sha256
    for _ in range(n):
        s = sha256(s.encode("ascii")).hexdigest()
    return s


def iso_millis(dt):
    """iso_millis writes an aware datetime as ISO 8601 UTC with milliseconds
    and Z, like JavaScript's toISOString (microseconds truncated)."""
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (dt.microsecond // 1000)
