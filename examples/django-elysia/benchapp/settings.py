"""Settings of the SaaS slice on Django, stripped down as in the published run:
no middleware, no installed apps beyond this one, DEBUG off, no request
logging. The harness passes PORT, DATABASE_URL and JWT_SECRET, and HOST when
the server must be reached from other hosts."""

import os
from urllib.parse import unquote, urlsplit

DEBUG = False
SECRET_KEY = "stackbench-django-example-not-a-secret"
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]
# HOST set: the server listens for other hosts (the start command binds
# ${HOST:-127.0.0.1}), which name it by an address of its host that this file
# cannot know: accept any Host header then.
if os.environ.get("HOST"):
    ALLOWED_HOSTS = ["*"]
MIDDLEWARE = []
INSTALLED_APPS = ["benchapp"]
TEMPLATES = []
USE_TZ = True
TIME_ZONE = "UTC"
USE_I18N = False
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
# 1 MiB bodies, like the Go reference servers; a larger one is a 413.
DATA_UPLOAD_MAX_MEMORY_SIZE = 1 << 20

# BENCH_VIEWS is set by wsgi.py (sync views) and asgi.py (async views).
ROOT_URLCONF = "benchapp.urls_async" if os.environ.get("BENCH_VIEWS") == "async" else "benchapp.urls_sync"

# No logging configuration of Django's own: errors go to stderr, requests are
# never logged.
LOGGING_CONFIG = None

JWT_SECRET = os.environ.get("JWT_SECRET") or "bench-secret-do-not-use-in-prod"


def _database(url):
    """Django's DATABASES entry for a postgres:// URL (query options such as
    sslmode are passed to libpq)."""
    if not url:
        raise SystemExit("DATABASE_URL is not set: point it at a database with the saas-slice schema (stackbench passes it)")
    u = urlsplit(url)
    options = dict(p.split("=", 1) for p in u.query.split("&") if "=" in p)
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": unquote(u.path.lstrip("/")),
        "USER": unquote(u.username or ""),
        "PASSWORD": unquote(u.password or ""),
        "HOST": u.hostname or "",
        "PORT": str(u.port or ""),
        "OPTIONS": options,
        # Django 3.2 has no connection pool: each thread that serves requests
        # keeps its own connection open for good. Ten threads, ten
        # connections: the contract's pool of 10 (see README.md).
        "CONN_MAX_AGE": None,
    }


DATABASES = {"default": _database(os.environ.get("DATABASE_URL"))}
