"""The same seven routes as async Django views (served by Uvicorn). Django 3.2
has no async ORM: each query runs in a thread of a pool of ten through
asgiref's sync_to_async, which is what the async ORM of Django 4.1 and later
does inside (aget, acreate, async for), with our own pool of ten threads in
place of one fresh thread per request; each thread keeps its own connection."""

import functools
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import sync_to_async

from . import contract as c
from . import data

# Ten threads, ten persistent connections: the contract's pool of 10.
_db_threads = ThreadPoolExecutor(max_workers=10, thread_name_prefix="db")


def _in_pool(fn):
    return sync_to_async(fn, thread_sensitive=False, executor=_db_threads)


user_by_id = _in_pool(data.user_by_id)
users_page = _in_pool(data.users_page)
insert_order = _in_pool(data.insert_order)


def route(method):
    """route answers 405 to any other method and turns BadRequest into its
    JSON error."""

    def wrap(view):
        @functools.wraps(view)
        async def handle(request, *args, **kwargs):
            if request.method != method:
                return c.error(405, "method not allowed")
            try:
                return await view(request, *args, **kwargs)
            except c.BadRequest as e:
                return c.error(e.status, str(e))

        return handle

    return wrap


@route("GET")
async def health(request):
    return c.respond({"status": "ok"})


@route("POST")
async def echo(request):
    return c.respond(c.echo_body(c.json_body(request)))


async def _user(user_id):
    user = await user_by_id(user_id)
    return c.error(404, "not found") if user is None else c.respond(user)


@route("GET")
async def me(request):
    user_id = c.user_id_of(request.headers.get("Authorization"))
    return c.error(401, "unauthorized") if user_id is None else await _user(user_id)


@route("GET")
async def user(request, id):
    user_id = c.decimal_in(id, 1, c.INT32_MAX)
    return c.error(400, "id must be an integer from 1 to 2147483647") if user_id is None else await _user(user_id)


@route("GET")
async def users(request):
    page, limit = c.paging(request.GET)
    return c.respond({"page": page, "limit": limit, "items": await users_page(limit, (page - 1) * limit)})


@route("POST")
async def orders(request):
    user_id, amount, currency = c.order_body(c.json_body(request))
    try:
        order = await insert_order(user_id, amount, currency)
    except data.AmountOverflow:
        return c.error(400, "amount rounds to 10^10 or more")
    return c.error(404, "not found") if order is None else c.respond(order, 201)


@route("GET")
async def cpu(request):
    n = c.cpu_rounds(request.GET)
    return c.respond({"n": n, "hash": c.hash_chain(n)})
