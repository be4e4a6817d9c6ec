"""The seven routes as plain synchronous Django views (served by Gunicorn's
gthread worker, one thread per request in flight)."""

import functools

from . import contract as c
from . import data


def route(method):
    """route answers 405 to any other method and turns BadRequest into its
    JSON error."""

    def wrap(view):
        @functools.wraps(view)
        def handle(request, *args, **kwargs):
            if request.method != method:
                return c.error(405, "method not allowed")
            try:
                return view(request, *args, **kwargs)
            except c.BadRequest as e:
                return c.error(e.status, str(e))

        return handle

    return wrap


@route("GET")
def health(request):
    return c.respond({"status": "ok"})


@route("POST")
def echo(request):
    return c.respond(c.echo_body(c.json_body(request)))


def _user(user_id):
    user = data.user_by_id(user_id)
    return c.error(404, "not found") if user is None else c.respond(user)


@route("GET")
def me(request):
    user_id = c.user_id_of(request.headers.get("Authorization"))
    return c.error(401, "unauthorized") if user_id is None else _user(user_id)


@route("GET")
def user(request, id):
    user_id = c.decimal_in(id, 1, c.INT32_MAX)
    return c.error(400, "id must be an integer from 1 to 2147483647") if user_id is None else _user(user_id)


@route("GET")
def users(request):
    page, limit = c.paging(request.GET)
    return c.respond({"page": page, "limit": limit, "items": data.users_page(limit, (page - 1) * limit)})


@route("POST")
def orders(request):
    user_id, amount, currency = c.order_body(c.json_body(request))
    try:
        order = data.insert_order(user_id, amount, currency)
    except data.AmountOverflow:
        return c.error(400, "amount rounds to 10^10 or more")
    return c.error(404, "not found") if order is None else c.respond(order, 201)


@route("GET")
def cpu(request):
    n = c.cpu_rounds(request.GET)
    return c.respond({"n": n, "hash": c.hash_chain(n)})
