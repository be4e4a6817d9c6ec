"""The three queries of the SaaS slice through Django's ORM: reads with
values() (no model instances), the insert with create()."""

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from django.db import DataError, IntegrityError

from .contract import INT32_MAX, iso_millis
from .models import Order, User

_fields = ("id", "name", "email", "age", "created_at")
_cents = Decimal("0.01")


class AmountOverflow(Exception):
    """AmountOverflow is an amount that rounds to 10^10 or more."""


def _user(row):
    return {"id": row["id"], "name": row["name"], "email": row["email"], "age": row["age"],
            "createdAt": iso_millis(row["created_at"])}


def user_by_id(user_id):
    """user_by_id is the user object of user_id, or None."""
    rows = list(User.objects.filter(id=user_id).values(*_fields)[:1])
    return _user(rows[0]) if rows else None


def users_page(limit, offset):
    """users_page is a page of user objects, ordered by id."""
    if offset > INT32_MAX * 100:  # far beyond any table (and beyond bigint near 2^63)
        return []
    return [_user(r) for r in User.objects.order_by("id").values(*_fields)[offset:offset + limit]]


def insert_order(user_id, amount, currency):
    """insert_order inserts an order and returns its object, or None when the
    user does not exist."""
    if user_id > INT32_MAX:
        return None
    # repr is the shortest text that reads back as the same double, the text
    # JavaScript's String(amount) gives; PostgreSQL and Decimal both round it
    # half away from zero to cents.
    try:
        cents = Decimal(repr(amount)).quantize(_cents, rounding=ROUND_HALF_UP)
        if cents >= Decimal(10) ** 10:
            raise AmountOverflow()
        order = Order.objects.create(user_id=user_id, amount=cents, currency=currency)
    except (InvalidOperation, DataError):
        raise AmountOverflow()
    except IntegrityError:
        return None  # the foreign key: no such user
    return {"id": order.id, "userId": user_id, "amount": str(cents), "currency": currency,
            "createdAt": iso_millis(order.created_at)}
