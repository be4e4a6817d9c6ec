"""ASGI entry point (Uvicorn): the async views."""

import os

os.environ["BENCH_VIEWS"] = "async"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchapp.settings")

from django.core.asgi import get_asgi_application  # noqa: E402

application = get_asgi_application()
