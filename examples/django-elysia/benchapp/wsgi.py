"""WSGI entry point (Gunicorn): the synchronous views."""

import os

os.environ["BENCH_VIEWS"] = "sync"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchapp.settings")

from django.core.wsgi import get_wsgi_application  # noqa: E402

application = get_wsgi_application()
