"""The URL patterns of both view modules, and the JSON error handlers."""

from django.urls import path

from . import contract as c


def patterns(views):
    return [
        path("health", views.health),
        path("echo", views.echo),
        path("me", views.me),
        path("users/<str:id>", views.user),
        path("users", views.users),
        path("orders", views.orders),
        path("cpu", views.cpu),
    ]


def not_found(request, exception=None):
    return c.error(404, "not found")


def bad_request(request, exception=None):
    return c.error(400, "bad request")


def server_error(request):
    return c.error(500, "internal error")
